/* lutmm fuzz: the standalone differential runner (docs/TESTING.md).
 *
 *   lutmm fuzz [--backend ref|cpu|cuda] [--mode exact|bound|both]
 *              [--cases N | --seconds S] [--seed X] [--case I] [--save DIR]
 *
 * Draws random cases (tools/fuzz_case.h), runs each on the chosen backend
 * and on the reference, prints a one-line reproducer for every mismatch and
 * ends with "N cases, M mismatches". With --save, every mismatching case is
 * also written to DIR as a fuzz-corpus entry for fuzz/corpus/gemm_exact or
 * gemm_bound (see docs/TESTING.md). Exit status: 0 all matched, 1 some
 * mismatch, 2 usage or harness error, 77 backend unavailable (a skip). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "fuzz_case.h"
#include "fuzz_diff.h"

typedef struct fuzz_options {
  const char *backend_name;
  lutmm_backend backend;
  const char *mode_name; /* exact, bound or both */
  long long cases;       /* < 0: unlimited */
  double seconds;        /* < 0: unlimited */
  unsigned long long seed;
  long long only_case;   /* >= 0: run just this case */
  const char *save_dir;  /* NULL: do not save mismatching cases */
} fuzz_options;

typedef struct fuzz_tally {
  long long cases, mismatches, unsupported, refused, errors;
} fuzz_tally;

static int usage(void) {
  fprintf(stderr,
          "usage: lutmm fuzz [--backend ref|cpu|cuda] [--mode exact|bound|both] [--cases N | --seconds S]\n"
          "                  [--seed X] [--case I] [--save DIR]\n");
  return 2;
}

static int parse_backend(const char *name, lutmm_backend *out) {
  if (strcmp(name, "ref") == 0 || strcmp(name, "reference") == 0) *out = LUTMM_BACKEND_REFERENCE;
  else if (strcmp(name, "cpu") == 0) *out = LUTMM_BACKEND_CPU;
  else if (strcmp(name, "cuda") == 0) *out = LUTMM_BACKEND_CUDA;
  else return 0;
  return 1;
}

static int parse_number(const char *text, double *out) {
  char *end;
  *out = strtod(text, &end);
  return *text != '\0' && *end == '\0' && *out >= 0;
}

static int parse_seed(const char *text, unsigned long long *out) {
  char *end;
  *out = strtoull(text, &end, 10);
  return *text >= '0' && *text <= '9' && *end == '\0';
}

static int parse_options(int argc, char **argv, fuzz_options *o) {
  const fuzz_options defaults = {"cpu", LUTMM_BACKEND_CPU, "both", -1, -1.0, 1, -1, NULL};
  *o = defaults;
  int seed_given = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
    double number = 0;
    if (value == NULL) return 0;
    i++;
    if (strcmp(arg, "--backend") == 0 && parse_backend(value, &o->backend)) o->backend_name = value;
    else if (strcmp(arg, "--mode") == 0 && (!strcmp(value, "exact") || !strcmp(value, "bound") || !strcmp(value, "both")))
      o->mode_name = value;
    else if (strcmp(arg, "--cases") == 0 && parse_number(value, &number)) o->cases = (long long)number;
    else if (strcmp(arg, "--seconds") == 0 && parse_number(value, &number)) o->seconds = number;
    else if (strcmp(arg, "--seed") == 0 && parse_seed(value, &o->seed)) seed_given = 1;
    else if (strcmp(arg, "--case") == 0 && parse_number(value, &number)) o->only_case = (long long)number;
    else if (strcmp(arg, "--save") == 0) o->save_dir = value;
    else return 0;
  }
  if (!seed_given && o->only_case < 0) o->seed = (unsigned long long)time(NULL);
  if (o->cases < 0 && o->seconds < 0) o->cases = 100;
  return 1;
}

static fz_mode mode_of_case(const fuzz_options *o, long long index) {
  if (strcmp(o->mode_name, "exact") == 0) return FZ_EXACT;
  if (strcmp(o->mode_name, "bound") == 0) return FZ_BOUND;
  return index % 2 == 0 ? FZ_EXACT : FZ_BOUND;
}

/* Each case has its own generator seed, so `--case I` replays case I alone. */
static uint64_t case_seed(unsigned long long seed, long long index) {
  uint64_t state = (uint64_t)seed ^ ((uint64_t)index * 0xD1B54A32D192ED03ull);
  return fz_mix(&state);
}

/* The CPU backend's runs favour its row kernel (fuzz_case.h). */
static int cpu_rows_of(const fuzz_options *o) { return o->backend == LUTMM_BACKEND_CPU; }

/* Writes the case as a 12-byte "SEED" (or "ROWS") corpus entry named for
 * its mode: the fuzz targets then draw the very same case. */
static void save_case(const fuzz_options *o, long long index, fz_mode mode) {
  char path[4096];
  uint8_t bytes[FZ_SEED_INPUT_BYTES];
  memcpy(bytes, cpu_rows_of(o) ? "ROWS" : "SEED", 4);
  const uint64_t seed = case_seed(o->seed, index);
  for (int i = 0; i < 8; i++) bytes[4 + i] = (uint8_t)(seed >> (8 * i));
  snprintf(path, sizeof path, "%s/%s-%s-seed%llu-case%lld", o->save_dir, mode == FZ_EXACT ? "gemm_exact" : "gemm_bound",
           o->backend_name, o->seed, index);
  FILE *f = fopen(path, "wb");
  if (f == NULL || fwrite(bytes, 1, sizeof bytes, f) != sizeof bytes) fprintf(stderr, "lutmm fuzz: cannot write %s\n", path);
  else printf("saved %s\n", path);
  if (f != NULL) fclose(f);
}

static void report(const fuzz_options *o, long long index, const fz_case *c, const char *what, const char *detail) {
  char params[256];
  fz_case_describe(c, params, sizeof params);
  printf("%s: %s | reproduce: lutmm fuzz --backend %s --mode %s --seed %llu --case %lld | %s\n", what, detail,
         o->backend_name, o->mode_name, o->seed, index, params);
  fflush(stdout);
}

static void run_one(const fuzz_options *o, lutmm_context *ref, lutmm_context *target, long long index,
                    fuzz_tally *t) {
  fz_source source = fz_source_from_seed(case_seed(o->seed, index), cpu_rows_of(o));
  fz_case c;
  char detail[512] = "";
  lutmm_status st = fz_case_draw(&source, mode_of_case(o, index), ref, &c);
  if (st == LUTMM_ERR_UNSUPPORTED) { /* no exact plan for this table: not a case */
    fz_case_free(&c);
    return;
  }
  fz_verdict v = FZ_ERROR;
  if (st != LUTMM_OK) snprintf(detail, sizeof detail, "drawing the case: %s", lutmm_status_string(st));
  else if (c.mode == FZ_EXACT && !fz_exact_verify(&c)) snprintf(detail, sizeof detail, "exact-mode generator broke its promise");
  else v = fz_run_case(ref, target, &c, detail, sizeof detail);
  if (v == FZ_UNSUPPORTED) t->unsupported++;
  else t->cases++;
  if (v == FZ_REFUSED) t->refused++;
  if (v == FZ_MISMATCH) {
    t->mismatches++;
    report(o, index, &c, "mismatch", detail);
    if (o->save_dir != NULL) save_case(o, index, c.mode);
  } else if (v == FZ_ERROR) {
    t->errors++;
    report(o, index, &c, "harness error", detail);
  }
  fz_case_free(&c);
}

static int open_contexts(const fuzz_options *o, lutmm_context **ref, lutmm_context **target) {
  lutmm_status st = lutmm_context_create(LUTMM_BACKEND_REFERENCE, ref);
  /* The reference's bits do not depend on its thread count; one thread keeps
   * it from fighting the backend under test for the cores. */
  if (st == LUTMM_OK) st = lutmm_context_set_num_threads(*ref, 1);
  if (st != LUTMM_OK) {
    fprintf(stderr, "lutmm fuzz: reference context: %s\n", lutmm_status_string(st));
    return 2;
  }
  st = lutmm_context_create(o->backend, target);
  if (st == LUTMM_OK) return 0;
  fprintf(stderr, "lutmm fuzz: backend %s: %s\n", o->backend_name, lutmm_status_string(st));
  lutmm_context_destroy(*ref);
  return st == LUTMM_ERR_BACKEND_UNAVAILABLE ? 77 : 2;
}

int lutmm_cli_fuzz(int argc, char **argv) {
  fuzz_options o;
  if (!parse_options(argc, argv, &o)) return usage();
  lutmm_context *ref = NULL, *target = NULL;
  const int opened = open_contexts(&o, &ref, &target);
  if (opened != 0) {
    if (opened == 77) printf("backend %s unavailable: skipped\n0 cases, 0 mismatches\n", o.backend_name);
    return opened;
  }
  fuzz_tally t = {0, 0, 0, 0, 0};
  const double start = cli_seconds();
  if (o.only_case >= 0) run_one(&o, ref, target, o.only_case, &t);
  for (long long i = 0; o.only_case < 0; i++) {
    if ((o.cases >= 0 && i >= o.cases) || (o.seconds >= 0 && cli_seconds() - start >= o.seconds)) break;
    run_one(&o, ref, target, i, &t);
  }
  lutmm_context_destroy(target);
  lutmm_context_destroy(ref);
  printf("backend %s, mode %s, seed %llu: %lld unsupported combinations skipped, %lld cases refused alike "
         "(weights overflow the compute dtype), %lld harness errors, %.1f s\n",
         o.backend_name, o.mode_name, o.seed, t.unsupported, t.refused, t.errors, cli_seconds() - start);
  printf("%lld cases, %lld mismatches\n", t.cases, t.mismatches);
  return t.mismatches > 0 ? 1 : t.errors > 0 ? 2 : 0;
}
