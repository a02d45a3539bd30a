/* The live web page's side of the metrics listener: its files, the list of past runs, and their
 * results and plots, read-only and by names of a fixed shape only. */
#include "web.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

const web_asset_t *web_asset(const char *url)
{
        if (streq(url, "/"))
                url = "/index.html";
        for (const web_asset_t *a = web_assets; a->path; a++)
                if (streq(a->path, url))
                        return a;
        return NULL;
}

/* A run directory's or a plot's name: [A-Za-z0-9._-]+, not starting with '.', at most 200. */
static bool name_ok(const char *s, size_t len)
{
        if (len == 0 || len > 200 || s[0] == '.')
                return false;
        for (size_t i = 0; i < len; i++) {
                char c = s[i];
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_' || c == '-'))
                        return false;
        }
        return true;
}

static bool ends_with(const char *s, const char *suffix)
{
        size_t a = strlen(s), b = strlen(suffix);
        return a > b && streq(s + a - b, suffix);
}

typedef struct entry {
        char name[256];
        int64_t mtime;
} entry_t;

static int cmp_newest(const void *a, const void *b)
{
        const entry_t *x = a, *y = b;
        if (x->mtime != y->mtime)
                return x->mtime > y->mtime ? -1 : 1;
        return strcmp(x->name, y->name);
}

/* One run directory: its result and its plots, as links. */
static json_t *run_json(int dfd, const entry_t *e)
{
        char link[600];
        struct stat st;
        json_t *plots = json_array(), *o;
        int pfd;

        snprintf(link, sizeof(link), "%s/plots", e->name);
        pfd = openat(dfd, link, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (pfd >= 0) {
                DIR *d = fdopendir(pfd);
                struct dirent *de;
                while (d && plots && (de = readdir(d))) {
                        if (!name_ok(de->d_name, strlen(de->d_name)) ||
                            !ends_with(de->d_name, ".svg"))
                                continue;
                        snprintf(link, sizeof(link), "/results/%s/plots/%s", e->name, de->d_name);
                        json_array_append_new(plots, json_string(link));
                }
                if (d)
                        closedir(d);
                else
                        close(pfd);
        }
        snprintf(link, sizeof(link), "%s/result.json", e->name);
        bool has_result = fstatat(dfd, link, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
        snprintf(link, sizeof(link), "/results/%s/result.json", e->name);
        o = json_pack("{s:s, s:I, s:o, s:o}", "name", e->name, "mtime", (json_int_t)e->mtime,
                      "result", has_result ? json_string(link) : json_null(), "plots", plots);
        return o;
}

int web_runs_json(const char *results_dir, char **ret, size_t *len)
{
        entry_t *e = NULL;
        size_t n = 0, cap = 0;
        struct dirent *de;
        json_t *arr;
        char *text;
        int dfd = open(results_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r = 0;
        DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;

        if (!d) {
                r = -errno;
                if (dfd >= 0)
                        close(dfd);
                if (r != -ENOENT)
                        return r;
        }
        while (d && (de = readdir(d))) {
                struct stat st;
                if (!name_ok(de->d_name, strlen(de->d_name)) ||
                    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
                        continue;
                if (array_reserve((void **)&e, &cap, n, sizeof(*e)) < 0) {
                        r = -ENOMEM;
                        break;
                }
                snprintf(e[n].name, sizeof(e[n].name), "%s", de->d_name);
                e[n++].mtime = (int64_t)st.st_mtime;
        }
        if (n)
                qsort(e, n, sizeof(*e), cmp_newest);
        arr = r < 0 ? NULL : json_array();
        for (size_t i = 0; arr && i < n && i < WEB_MAX_RUNS; i++)
                json_array_append_new(arr, run_json(dfd, &e[i]));
        if (d)
                closedir(d);
        free(e);
        if (!arr)
                return r < 0 ? r : -ENOMEM;
        text = json_dumps(arr, JSON_COMPACT);
        json_decref(arr);
        if (!text)
                return -ENOMEM;
        *ret = text;
        if (len)
                *len = strlen(text);
        return 0;
}

int web_result_open(const char *results_dir, const char *rest, int *fd, uint64_t *size,
                    const char **type)
{
        const char *slash = strchr(rest, '/'), *file;
        char path[600];
        struct stat st;
        int dfd, f, r;

        if (!slash || !name_ok(rest, (size_t)(slash - rest)))
                return -EINVAL;
        file = slash + 1;
        if (streq(file, "result.json"))
                *type = "application/json";
        else if (streq(file, "intervals.csv"))
                *type = "text/csv; charset=utf-8";
        else if (strncmp(file, "plots/", 6) == 0 && name_ok(file + 6, strlen(file + 6)) &&
                 ends_with(file, ".svg"))
                *type = "image/svg+xml";
        else
                return -EINVAL;
        snprintf(path, sizeof(path), "%.*s", (int)(slash - rest), rest);
        dfd = open(results_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return -errno;
        /* The run's directory and the plots directory are real directories, never links. */
        r = openat(dfd, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(dfd);
        if (r < 0)
                return errno == ELOOP || errno == ENOTDIR ? -ENOENT : -errno;
        dfd = r;
        if (strncmp(file, "plots/", 6) == 0) {
                r = openat(dfd, "plots", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                close(dfd);
                if (r < 0)
                        return errno == ELOOP || errno == ENOTDIR ? -ENOENT : -errno;
                dfd = r;
                file += 6;
        }
        f = openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        r = f < 0 ? -errno : 0;
        close(dfd);
        if (r < 0)
                return r == -ELOOP ? -ENOENT : r;
        if (fstat(f, &st) < 0 || !S_ISREG(st.st_mode)) {
                close(f);
                return -ENOENT;
        }
        *fd = f;
        *size = (uint64_t)st.st_size;
        return 0;
}
