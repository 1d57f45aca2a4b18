/*
 * tools/plot.h - drawing with gnuplot: the scripts of tools/gnuplot/
 * (built into the binary, tools/gnuplot_scripts.c, generated), temporary
 * data folders, and running gnuplot on them.
 */
#ifndef P2PSIM_TOOLS_PLOT_H
#define P2PSIM_TOOLS_PLOT_H

#include <stdio.h>

/* The scripts, as text (tools/gnuplot/heatmap.gp and sweep.gp). */
extern const char plot_gp_heatmap[];
extern const char plot_gp_sweep[];
extern const char plot_gp_util[];    /* tools/gnuplot/util.gp */

/* A fresh temporary folder into dir (PATH_MAX bytes); 0 or -1. */
int plot_tmpdir(char *dir, size_t size);
/* Remove the folder made by plot_tmpdir and the files in it. */
void plot_tmpdir_remove(const char *dir);

/*
 * plot_run - run gnuplot on script (the text of a tools/gnuplot/ script)
 * with settings given to -e before it ("data='x'; out='y.png'"). Looks for
 * gnuplot on PATH; prints how to get it when it is missing. 0 or -1.
 */
int plot_run(const char *script, const char *settings);

/* Write s to f as a gnuplot single-quoted string ('' for '). */
void plot_quote(FILE *f, const char *s);

#endif /* P2PSIM_TOOLS_PLOT_H */
