/* A sweep's directory: sweep.json and plan.ini beside the per-point result directories. */
#include "sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "util.h"

void sweep_point_dir(const char *results_dir, const Iofleet__SubmitRun *s, char *buf, size_t len)
{
        snprintf(buf, len, "%s/%s/point-%03u-r%u", results_dir, s->sweep_id, s->point, s->repeat);
}

int sweep_record(const char *results_dir, const Iofleet__SubmitRun *s, const char *run_id,
                 const char *error)
{
        char dir[4096], path[4200], pdir[4200];
        json_t *doc, *points, *pt, *params, *names;
        json_error_t je;
        char *text;
        size_t i;
        int r;

        snprintf(dir, sizeof(dir), "%s/%s", results_dir, s->sweep_id);
        if ((r = mkdir_p(dir, 0755)) < 0)
                return log_error_errno(r, "results: cannot create %s: %m", dir);
        snprintf(path, sizeof(path), "%s/plan.ini", dir);
        if (s->command_line && access(path, F_OK) < 0 &&
            (r = write_file_atomic(path, s->command_line, strlen(s->command_line), 0644)) < 0)
                return log_error_errno(r, "results: cannot write %s: %m", path);

        snprintf(path, sizeof(path), "%s/sweep.json", dir);
        doc = json_load_file(path, 0, &je);
        if (!doc || !json_is_object(doc) || !json_is_array(json_object_get(doc, "points"))) {
                json_decref(doc);
                doc = json_object();
                json_object_set_new(doc, "sweep_id", json_string(s->sweep_id));
                json_object_set_new(doc, "points", json_array());
        }
        if (s->plan_name && *s->plan_name)
                json_object_set_new(doc, "plan", json_string(s->plan_name));
        names = json_array();
        for (i = 0; i < s->n_sweep_params; i++)
                json_array_append_new(names, json_string(s->sweep_params[i]));
        json_object_set_new(doc, "parameters", names);

        points = json_object_get(doc, "points");
        pt = json_object();
        params = json_object();
        for (i = 0; i < s->n_point_params; i++)
                json_object_set_new(params, s->point_params[i]->key,
                                    json_string(s->point_params[i]->value));
        sweep_point_dir("", s, pdir, sizeof(pdir));
        json_object_set_new(pt, "index", json_integer(s->point));
        json_object_set_new(pt, "repeat", json_integer(s->repeat));
        json_object_set_new(pt, "params", params);
        json_object_set_new(pt, "dir", json_string(pdir + 2 + strlen(s->sweep_id)));
        json_object_set_new(pt, "run_id", json_string(run_id ? run_id : ""));
        json_object_set_new(pt, "error", json_string(error ? error : ""));
        /* A point run again replaces its earlier record; the list stays in run order. */
        for (i = 0; i < json_array_size(points); i++) {
                json_t *o = json_array_get(points, i);
                if (json_integer_value(json_object_get(o, "index")) == s->point &&
                    json_integer_value(json_object_get(o, "repeat")) == s->repeat)
                        break;
        }
        if (i < json_array_size(points))
                json_array_set_new(points, i, pt);
        else
                json_array_append_new(points, pt);
        text = json_dumps(doc, JSON_INDENT(2));
        json_decref(doc);
        if (!text)
                return -ENOMEM;
        r = write_file_atomic(path, text, strlen(text), 0644);
        free(text);
        if (r < 0)
                return log_error_errno(r, "results: cannot write %s: %m", path);
        return 0;
}
