/* Plain-executable driver: feeds every file of the corpus directories (or
 * single files) named on the command line to the target, in sorted order,
 * without libFuzzer. Exit 0 when all inputs ran, 77 when every input was
 * skipped, 1 when a path is unreadable or holds no input at all. A failing
 * property aborts inside the target. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_check.h"

static int read_file(const char *path, uint8_t **data, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return 0;
  size_t cap = 4096, len = 0;
  uint8_t *buf = malloc(cap);
  size_t got;
  while (buf != NULL && (got = fread(buf + len, 1, cap - len, f)) > 0) {
    len += got;
    if (len == cap) {
      uint8_t *grown = realloc(buf, cap *= 2);
      if (grown == NULL) free(buf);
      buf = grown;
    }
  }
  fclose(f);
  *data = buf;
  *size = len;
  return buf != NULL;
}

static int run_file(const char *path) {
  uint8_t *data;
  size_t size;
  if (!read_file(path, &data, &size)) {
    fprintf(stderr, "cannot read %s\n", path);
    return 0;
  }
  LLVMFuzzerTestOneInput(data, size);
  free(data);
  return 1;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file of `dir`; returns how many, or -1 on error. */
static long run_directory(const char *dir) {
  DIR *d = opendir(dir);
  if (d == NULL) return -1;
  char **names = NULL;
  size_t count = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char **grown = realloc(names, (count + 1) * sizeof *names);
    if (grown == NULL) break;
    names = grown;
    names[count++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, count, sizeof *names, compare_names);
  long ran = 0;
  int unreadable = 0;
  for (size_t i = 0; i < count; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    struct stat st;
    if (names[i] != NULL && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
      if (run_file(path)) ran++;
      else unreadable = 1;
    }
    free(names[i]);
  }
  free(names);
  return unreadable ? -1 : ran;
}

int main(int argc, char **argv) {
  long total = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "%s: no such file or directory\n", argv[i]);
      return 1;
    }
    const long ran = S_ISDIR(st.st_mode) ? run_directory(argv[i]) : run_file(argv[i]);
    if (ran < 0) return 1;
    total += ran;
  }
  if (total == 0) {
    fprintf(stderr, "no inputs to replay\n");
    return 1;
  }
  const size_t skipped = fuzz_skipped_count();
  printf("%ld inputs replayed, %zu skipped\n", total, skipped);
  return skipped == (size_t)total ? 77 : 0;
}
