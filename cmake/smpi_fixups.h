/* Force-included after SMPI's smpi_helpers.h (which smpicc/smpicxx force-include) in the
 * GRIDLOCK_SMPI build. smpi_helpers.h defines `exit` as a function-like macro, which breaks
 * every member called exit (CLI::App::exit in CLI11). gridlock never calls exit(): programs
 * return from main(), which SMPI handles per rank. */
#undef exit
