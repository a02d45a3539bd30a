/* libFuzzer target for the wire codec: decode under several caps, re-encode what decodes, merge its
 * histograms. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "hist.h"
#include "options.h"
#include "wire.h"


/* An error message is one terminated line that says something. */
static void check_message(const char *err, size_t errlen)
{
        size_t len = strnlen(err, errlen);

        CHECK(len < errlen);
        CHECK(len > 0);
        CHECK(!memchr(err, '\n', len));
}

/* A validated histogram adds into an empty hist_t without breaking its invariants. */
static void check_hist(const Iofleet__Hist *pb)
{
        hist_t *h = NULL;
        uint64_t total = 0;

        if (!pb)
                return;
        CHECK(hist_new(&h) == 0);
        wire_hist_add(h, pb);
        CHECK(h->n == pb->n);
        for (unsigned i = 0; i < HIST_BUCKETS; i++)
                total += h->buckets[i];
        CHECK(total == h->n);
        if (pb->n) {
                CHECK(h->min == pb->min && h->max == pb->max && h->sum == pb->sum);
                CHECK(hist_to_sparse(h, NULL, NULL, 0) <= pb->n_index);
        }
        (void)hist_percentile(h, 50);
        (void)hist_percentile(h, 99.99);
        (void)hist_mean(h);
        (void)hist_stddev(h);
        hist_free(&h);
}

static void check_dir(const Iofleet__DirStats *d)
{
        if (d)
                check_hist(d->clat);
}

/* Jobs that passed the field checks go through the option table like an agent's would. */
static void check_jobs(Iofleet__Job **jobs, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                job_spec_t spec;
                char err[512];
                memset(err, 'X', sizeof(err));
                if (wire_job_spec(jobs[i], &spec, err, sizeof(err)) == 0)
                        job_spec_done(&spec);
        }
}

static void check_decoded(envelope_t *e)
{
        uint8_t *buf = NULL, *buf2 = NULL;
        size_t len = 0, len2 = 0;
        envelope_t *again = NULL;
        char err[256];
        int r;

        CHECK(e->version == PROTOCOL_VERSION);
        CHECK(wire_body_name(e) != NULL);

        /* What decodes re-encodes, decodes again, and is then a fixed point. */
        CHECK(wire_encode(e, &buf, &len) == 0);
        memset(err, 'X', sizeof(err));
        r = wire_decode(buf, len, WIRE_MAX_CONTROL_MSG, &again, err, sizeof(err));
        if (r != 0)
                fprintf(stderr, "re-decode failed: %d %.*s\n", r, (int)sizeof(err), err);
        CHECK(r == 0);
        CHECK(again->body_case == e->body_case);
        CHECK(wire_encode(again, &buf2, &len2) == 0);
        CHECK(len2 == len && memcmp(buf, buf2, len) == 0);
        free(buf);
        free(buf2);
        wire_free(&again);
        CHECK(again == NULL);

        switch (e->body_case) {
        case IOFLEET__ENVELOPE__BODY_INTERVAL:
                check_dir(e->interval->read);
                check_dir(e->interval->write);
                break;
        case IOFLEET__ENVELOPE__BODY_FINISHED:
                for (size_t i = 0; i < e->finished->n_jobs; i++) {
                        check_dir(e->finished->jobs[i]->read);
                        check_dir(e->finished->jobs[i]->write);
                }
                break;
        case IOFLEET__ENVELOPE__BODY_PREPARE:
                check_jobs(e->prepare->jobs, e->prepare->n_jobs);
                break;
        case IOFLEET__ENVELOPE__BODY_SUBMIT_RUN:
                check_jobs(e->submit_run->jobs, e->submit_run->n_jobs);
                break;
        default:
                break;
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        /* A small cap first: most inputs are refused before decoding. */
        static const size_t caps[] = {64, WIRE_MAX_AGENT_MSG, WIRE_MAX_CONTROL_MSG};

        for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
                envelope_t *e = NULL;
                char err[256];
                int r;

                memset(err, 'X', sizeof(err));
                r = wire_decode(data, size, caps[i], &e, err, sizeof(err));
                CHECK(r == 0 || r == -EMSGSIZE || r == -EBADMSG || r == -EPROTO);
                if (r < 0)
                        check_message(err, sizeof(err));
                switch (r) {
                case -EMSGSIZE:
                        CHECK(size > caps[i]);
                        CHECK(e == NULL);
                        break;
                case -EBADMSG:
                        CHECK(size <= caps[i]);
                        CHECK(e == NULL);
                        break;
                case -EPROTO:
                        /* handed back for logging only */
                        CHECK(e != NULL && e->version != PROTOCOL_VERSION);
                        (void)wire_body_name(e);
                        wire_free(&e);
                        break;
                default:
                        CHECK(e != NULL);
                        check_decoded(e);
                        wire_free(&e);
                        break;
                }
                CHECK(e == NULL);
        }
        return 0;
}
