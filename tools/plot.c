/*
 * tools/plot.c - running gnuplot on the scripts of tools/gnuplot/.
 */
#include <config.h>

#include "tools/plot.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int plot_tmpdir(char *dir, size_t size)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, size, "%s/p2psim-plot-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "p2psim: cannot create a temporary folder %s: %s\n",
                dir, strerror(errno));
        return -1;
    }
    return 0;
}

void plot_tmpdir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            char path[PATH_MAX];
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            unlink(path);
        }
    }
    closedir(d);
    rmdir(dir);
}

void plot_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') {
            fputc('\'', f);
        }
        fputc(*s, f);
    }
    fputc('\'', f);
}

int plot_run(const char *script, const char *settings)
{
    char dir[PATH_MAX];
    if (plot_tmpdir(dir, sizeof(dir)) < 0) {
        return -1;
    }
    char path[PATH_MAX + 16];
    snprintf(path, sizeof(path), "%s/plot.gp", dir);
    FILE *f = fopen(path, "w");
    if (!f || fputs(script, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "p2psim: cannot write %s\n", path);
        plot_tmpdir_remove(dir);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execlp("gnuplot", "gnuplot", "-e", settings, path, (char *)NULL);
        if (errno == ENOENT) {
            fprintf(stderr, "p2psim: plotting needs gnuplot, which is not "
                            "on PATH (Debian: apt-get install gnuplot-nox)\n");
        } else {
            fprintf(stderr, "p2psim: cannot run gnuplot: %s\n",
                    strerror(errno));
        }
        _exit(127);
    }
    int status = -1;
    if (pid > 0) {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            /* retry */
        }
    }
    plot_tmpdir_remove(dir);
    if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 127) {
            fprintf(stderr, "p2psim: gnuplot failed\n");
        }
        return -1;
    }
    return 0;
}
