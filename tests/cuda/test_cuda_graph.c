/* lutmm_gemm captured in a CUDA graph (lutmm_cuda.h says it may be): each
 * case's GEMM is captured once on a stream of its own, then the graph is
 * replayed four times with new X each time, eager GEMMs of another shape on
 * the same context in between, and every replay must match the reference
 * (exact mode: equal bits). The cases reach every path whose launches share
 * state on the device: the skinny kernel's shared reduction and its
 * last-contributor reduction (cooperative launches and skinny clusters
 * off), both counted by tickets, its cut columns added by clusters, two
 * skinny launches in one call, the Stream-K fixup after the wide and tiled
 * kernels, and the wide kernel's cluster launches. A launch that left a
 * ticket behind would give the next replay wrong sums. Shapes whose eager calls tag their partials
 * (a tag counted on the host, which a replay would not advance) must take
 * tickets when captured: no captured call may take a tag, while one of
 * the eager GEMMs between replays (M = 3 on 2048 columns, the
 * column-stream kernel where launches are cooperative) does. Exit 77
 * without a device. */
#include <stdio.h>
#include <string.h>

#include "cuda_harness.h"
#include "cuda_state.h"
#include "lutmm_cuda.h"

#define REPLAYS 4

static int failures = 0, replays = 0;

static void fail(const gemm_case *c, const char *what, const char *why) {
  char name[160];
  harness_describe(c, name, sizeof name);
  printf("FAIL %s: %s %s\n", name, what, why);
  failures++;
}

/* Captures one lutmm_gemm of case c on the context's stream. */
static int capture(harness *h, cudaStream_t stream, const gemm_case *c, const harness_inputs *in, const void *d_x,
                   void *d_y, cudaGraphExec_t *exec) {
  cudaGraph_t graph = NULL;
  const lutmm_cuda_state *s = lutmm_cuda_state_of(h->cuda);
  const uint32_t tag_before = s->last_tag;
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) return 0;
  const lutmm_status st = lutmm_gemm(h->cuda, in->w_cuda, c->m, d_x, c->x_dtype, d_y, c->y_dtype);
  const cudaError_t end = cudaStreamEndCapture(stream, &graph);
  /* a replay would reuse the tag, which the next launch's parts could not
   * be told from */
  if (s->last_tag != tag_before) fail(c, "capture:", "the captured call took a launch tag");
  int ok = st == LUTMM_OK && end == cudaSuccess && cudaGraphInstantiate(exec, graph, 0) == cudaSuccess;
  if (graph != NULL) cudaGraphDestroy(graph);
  if (st != LUTMM_OK) fail(c, "lutmm_gemm under capture:", lutmm_status_string(st));
  else if (!ok) fail(c, "capture or instantiation:", cudaGetErrorString(end != cudaSuccess ? end : cudaGetLastError()));
  return ok;
}

/* One replay: new X, poisoned Y, the graph, then the check. */
static void replay(harness *h, cudaStream_t stream, const gemm_case *c, harness_inputs *in, void *d_x, void *d_y,
                   cudaGraphExec_t exec, uint64_t *rng) {
  char why[256] = "";
  harness_new_x(c, rng, in);
  harness_poison(in);
  lutmm_status st = lutmm_copy_to_context(h->cuda, d_x, in->x, in->x_bytes);
  if (st == LUTMM_OK) st = lutmm_copy_to_context(h->cuda, d_y, in->y_cuda, in->y_bytes + HARNESS_GUARD_BYTES);
  if (st == LUTMM_OK && (cudaGraphLaunch(exec, stream) != cudaSuccess || cudaStreamSynchronize(stream) != cudaSuccess))
    st = LUTMM_ERR_DEVICE;
  if (st == LUTMM_OK) st = lutmm_copy_to_host(h->cuda, in->y_cuda, d_y, in->y_bytes + HARNESS_GUARD_BYTES);
  replays++;
  if (st != LUTMM_OK) fail(c, "replay:", lutmm_status_string(st));
  else if (harness_check(h, c, in, why, sizeof why) != 0) fail(c, "replay:", why);
}

/* Eager GEMMs between replays: their launches move whatever state the
 * host keeps from launch to launch (a graph would not see it move): 4096 x
 * 1000 the skinny kernel's (tickets, shared reduction or clusters), 4096 x
 * 2048 the column-stream kernel's launch tag where launches are
 * cooperative (M = 3, 32 atom columns: the rules take it). */
static void eager(harness *h, uint64_t *rng) {
  static const int64_t n[2] = {1000, 2048};
  lutmm_cuda_state *s = lutmm_cuda_state_of(h->cuda);
  for (int i = 0; i < 2; i++) {
    char why[256] = "";
    const gemm_case c = {4, 3, 4096, n[i], 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0,
                         harness_next(rng)};
    const uint32_t tag_before = s->last_tag;
    if (harness_run_case(h, &c, why, sizeof why, NULL) != 0) fail(&c, "eager GEMM between replays:", why);
    const int column = i == 1 && s->cooperative && s->column_stream;
    if (s->last_skinny_column != column || (column && s->last_tag == tag_before))
      fail(&c, "eager GEMM between replays:", column ? "no column-stream launch with a tag" : "a column-stream launch");
  }
}

static void graph_case(harness *h, cudaStream_t stream, const gemm_case *c) {
  harness_inputs in;
  void *d_x = NULL, *d_y = NULL;
  cudaGraphExec_t exec = NULL;
  uint64_t rng = c->seed ^ 0x5EEDull;
  lutmm_status st = harness_prepare(h, c, &in);
  if (st == LUTMM_OK) st = lutmm_malloc(h->cuda, in.x_bytes, &d_x);
  if (st == LUTMM_OK) st = lutmm_malloc(h->cuda, in.y_bytes + HARNESS_GUARD_BYTES, &d_y);
  if (st != LUTMM_OK) fail(c, "setup:", lutmm_status_string(st));
  else if (capture(h, stream, c, &in, d_x, d_y, &exec))
    for (int r = 0; r < REPLAYS; r++) {
      replay(h, stream, c, &in, d_x, d_y, exec, &rng);
      eager(h, &rng);
    }
  if (exec != NULL) cudaGraphExecDestroy(exec);
  lutmm_free(h->cuda, d_x);
  lutmm_free(h->cuda, d_y);
  harness_release(&in);
}

/* The shapes of test_cuda_gemm that reach each path: 2048 x 28672 at M = 4
 * tags its partials when called eagerly, and so does 1024 x 8192 at M = 1
 * where no clusters add its cut columns (on a Hopper part clusters of 8
 * blocks do, by lutmm_skinny_cluster_plan, except in the plain pass);
 * 4096 x 1000 at M = 8 and 16 cuts each column among 16 blocks (shared
 * reduction where launches are cooperative; at M = 8 on Hopper, two
 * clusters of 16 blocks whose sums meet by tickets); 4096 x 2048 at M = 100 and 256 cuts
 * tiles of the wide kernel (codes of up to 4 bits on Hopper; elsewhere the
 * tiled one); 6-bit codes at M = 100 (groups of 128) take two skinny
 * launches, at M = 300 (groups of 32) the tiled kernel; 1024 x 8192 at
 * M = 256 (groups of 128) halves the wide kernel's 64 tiles, which on a
 * Hopper part of 132 SMs two-block clusters add (the planner's rules,
 * lutmm_wide_cluster_ways); 4096 x 1000 at M = 24 (2-bit codes) takes
 * the wide kernel's 128-row tiles on Hopper (wide_takes_few_rows), the
 * skinny kernel elsewhere. Odd cases take groups of 32. */
static void all_cases(harness *h, cudaStream_t stream, const char *label) {
  static const int64_t shapes[][4] = {{1, 1, 1024, 8192},   {4, 4, 2048, 28672},  {2, 8, 4096, 1000},
                                      {3, 16, 4096, 1000},  {4, 100, 4096, 2048}, {4, 256, 4096, 2048},
                                      {6, 100, 4096, 2048}, {6, 300, 4096, 2048}, {4, 256, 1024, 8192},
                                      {2, 24, 4096, 1000}};
  uint64_t rng = 77;
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    gemm_case c = {(int)shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3], i % 2 ? 32 : 128,
                   LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, harness_next(&rng)};
    c.x_dtype = i % 3 == 2 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
    graph_case(h, stream, &c);
  }
  printf("%s: %d replays so far, %d failures\n", label, replays, failures);
}

int main(void) {
  harness h;
  const int open = harness_open(&h);
  if (open != 0) return open;
  cudaStream_t stream = NULL;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess ||
      lutmm_cuda_set_stream(h.cuda, stream) != LUTMM_OK) {
    printf("FAIL: could not give the context a stream of its own\n");
    harness_close(&h);
    return 1;
  }
  lutmm_cuda_state *s = lutmm_cuda_state_of(h.cuda);
  all_cases(&h, stream, s->cooperative ? "cooperative launches" : "plain launches");
  if (s->cooperative) { /* the plain launches' last-contributor reduction too, without skinny clusters */
    int clusters[LUTMM_SKINNY_MAX_CLUSTER + 1];
    memcpy(clusters, s->skinny_clusters, sizeof clusters);
    memset(s->skinny_clusters, 0, sizeof clusters);
    s->cooperative = 0;
    all_cases(&h, stream, "plain launches");
    s->cooperative = 1;
    memcpy(s->skinny_clusters, clusters, sizeof clusters);
  }
  lutmm_cuda_set_stream(h.cuda, 0);
  cudaStreamDestroy(stream);
  harness_close(&h);
  printf("%d replays, %d failures\n", replays, failures);
  return failures == 0 ? 0 : 1;
}
