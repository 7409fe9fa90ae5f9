/* Headless generator for one puzzle of Simon Tatham's collection, for bench/puzzles.py: the
   `--generate N PARAMS` and `--version` of his GTK front end, without GTK. Built against a
   checkout of his source by `make tatham-c` (his code is MIT-licensed; none of it is copied here).
   Prints N game IDs, one per line, as PARAMS:DESC with the parameters he puts in game IDs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "puzzles.h"

#ifndef SOURCE_VERSION
#define SOURCE_VERSION "unknown"
#endif

extern const game thegame;

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--version")) {
        printf("%s, built by make tatham-c from his source (%s)\n", thegame.name, SOURCE_VERSION);
        return 0;
    }
    if (argc != 4 || strcmp(argv[1], "--generate") || atoi(argv[2]) < 1) {
        fprintf(stderr, "usage: %s --generate N PARAMS | --version\n", argv[0]);
        return 2;
    }
    game_params *params = thegame.default_params();
    thegame.decode_params(params, argv[3]);
    const char *err = thegame.validate_params(params, true);
    if (err) {
        fprintf(stderr, "%s: error parsing '%s': %s\n", argv[0], argv[3], err);
        return 1;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    random_state *rs = random_new((void *)&now, sizeof(now));
    char *id_params = thegame.encode_params(params, false);
    for (int i = 0, n = atoi(argv[2]); i < n; i++) {
        char *aux = NULL;
        char *desc = thegame.new_desc(params, rs, &aux, false);
        printf("%s:%s\n", id_params, desc);
        sfree(desc);
        sfree(aux);
    }
    return 0;
}
