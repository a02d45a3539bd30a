/* Wire codec: the only place that packs and unpacks protobuf Envelopes, with size, version and
 * field checks. */
#include "wire.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "wire-check.h"

/* protobuf-c keeps a field numbered 0 as an unknown field when its tag is spelt with a redundant
 * varint byte, then packs it back in the one-byte form its own decoder refuses: a message holding
 * one would not survive being passed on (the coordinator forwards jobs to agents). Returns the
 * name of the message type holding one, or NULL. */
static const char *find_field_zero(const ProtobufCMessage *m)
{
        const char *base = (const char *)m, *r;

        for (unsigned i = 0; i < m->n_unknown_fields; i++)
                if (m->unknown_fields[i].tag == 0)
                        return m->descriptor->name;
        for (unsigned i = 0; i < m->descriptor->n_fields; i++) {
                const ProtobufCFieldDescriptor *f = &m->descriptor->fields[i];
                if (f->type != PROTOBUF_C_TYPE_MESSAGE)
                        continue;
                if (f->label == PROTOBUF_C_LABEL_REPEATED) {
                        size_t n = *(const size_t *)(base + f->quantifier_offset);
                        ProtobufCMessage *const *v =
                            *(ProtobufCMessage *const *const *)(base + f->offset);
                        for (size_t k = 0; k < n; k++)
                                if ((r = find_field_zero(v[k])))
                                        return r;
                        continue;
                }
                /* members of a oneof share their storage: only the set one is a message */
                if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
                    *(const uint32_t *)(base + f->quantifier_offset) != f->id)
                        continue;
                const ProtobufCMessage *sub = *(ProtobufCMessage *const *)(base + f->offset);
                if (sub && (r = find_field_zero(sub)))
                        return r;
        }
        return NULL;
}

typedef struct decode_budget {
        size_t left;
        bool exceeded;
} decode_budget_t;

static void *budget_alloc(void *data, size_t size)
{
        decode_budget_t *b = data;
        if (size > b->left) {
                b->exceeded = true;
                return NULL;
        }
        b->left -= size;
        return malloc(size);
}

/* Plain free(): what the budget allocated is malloc'd, so wire_free() can use the default
 * allocator long after the budget is gone. */
static void budget_free(void *data, void *p)
{
        free(p);
}

int wire_decode(const void *buf, size_t len, size_t cap, envelope_t **ret, char *err, size_t errlen)
{
        const char *zero;
        envelope_t *e;
        int r;

        if (len > cap)
                return errorf(err, errlen, -EMSGSIZE, "message of %zu bytes exceeds the cap of %zu",
                              len, cap);
        {
                /* protobuf-c may allocate far more than the message's size (empty repeated
                 * messages cost a struct each): a budget keeps a peer from turning 16 MiB on
                 * the wire into gigabytes here. Packed histograms need up to 8x. */
                decode_budget_t b = {.left = 16 * len + 64 * 1024};
                ProtobufCAllocator a = {
                    .alloc = budget_alloc, .free = budget_free, .allocator_data = &b};
                e = iofleet__envelope__unpack(&a, len, buf);
                if (!e && b.exceeded)
                        return errorf(err, errlen, -EBADMSG,
                                      "message of %zu bytes needs more than %zu bytes decoded", len,
                                      16 * len + 64 * 1024);
        }
        if (!e)
                return errorf(err, errlen, -EBADMSG, "message of %zu bytes is not a valid Envelope",
                              len);
        if (e->version != PROTOCOL_VERSION) {
                *ret = e;
                return errorf(err, errlen, -EPROTO,
                              "peer speaks protocol version %u, this side speaks %u", e->version,
                              PROTOCOL_VERSION);
        }
        zero = find_field_zero(&e->base);
        r = zero ? errorf(err, errlen, -EBADMSG, "%s: field number 0 not allowed", zero)
                 : wire_check_body(e, err, errlen);
        if (r < 0) {
                iofleet__envelope__free_unpacked(e, NULL);
                return r;
        }
        *ret = e;
        return 0;
}

void wire_free(envelope_t **e)
{
        if (*e) {
                iofleet__envelope__free_unpacked(*e, NULL);
                *e = NULL;
        }
}

int wire_encode(envelope_t *e, uint8_t **buf, size_t *len)
{
        size_t n;
        uint8_t *b;

        if (e->version == 0)
                e->version = PROTOCOL_VERSION;
        n = iofleet__envelope__get_packed_size(e);
        b = malloc(n ? n : 1);
        if (!b)
                return -ENOMEM;
        iofleet__envelope__pack(e, b);
        *buf = b;
        *len = n;
        return 0;
}

const char *wire_body_name(const envelope_t *e)
{
        const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(
            &iofleet__envelope__descriptor, (unsigned)e->body_case);
        return f ? f->name : "unknown";
}

int wire_hist_from(Iofleet__Hist *pb, const hist_t *h)
{
        size_t n = hist_to_sparse(h, NULL, NULL, 0);
        uint64_t total = 0;

        iofleet__hist__init(pb);
        pb->min = h->min;
        pb->max = h->max;
        pb->sum = h->sum;
        pb->sumsq = h->sumsq;
        if (n > 0) {
                pb->index = malloc(n * sizeof(*pb->index));
                pb->count = malloc(n * sizeof(*pb->count));
                if (!pb->index || !pb->count) {
                        wire_hist_done(pb);
                        return -ENOMEM;
                }
                pb->n_index = pb->n_count = hist_to_sparse(h, pb->index, pb->count, n);
        }
        /* n is the sum of the buckets sent, not h->n: a snapshot taken while a worker records
         * can hold a count whose bucket it has not caught yet, and the receiver checks that the
         * two agree. */
        for (size_t i = 0; i < pb->n_index; i++)
                total += pb->count[i];
        pb->n = total;
        if (total == 0)
                pb->min = pb->max = 0;
        else if (pb->min > pb->max) {
                pb->min = hist_bucket_low(pb->index[0]);
                pb->max = hist_bucket_high(pb->index[pb->n_index - 1]);
        }
        return 0;
}

void wire_hist_done(Iofleet__Hist *pb)
{
        free(pb->index);
        free(pb->count);
        pb->index = NULL;
        pb->count = NULL;
        pb->n_index = pb->n_count = 0;
}

void wire_hist_add(hist_t *h, const Iofleet__Hist *pb)
{
        if (!pb || pb->n == 0)
                return;
        /* Straight into h: this runs for every interval of every agent, and a temporary
         * histogram would cost a clear and a full merge of all its buckets each time. */
        if (hist_add_sparse(h, pb->index, pb->count, pb->n_index) < 0)
                return; /* wire_decode validated it; unreachable for decoded messages */
        h->n += pb->n;
        h->sum += pb->sum;
        h->sumsq += pb->sumsq;
        if (pb->min < h->min)
                h->min = pb->min;
        if (pb->max > h->max)
                h->max = pb->max;
}

int wire_job_spec(const Iofleet__Job *job, job_spec_t *spec, char *err, size_t errlen)
{
        char e[512];
        int r = job_spec_init(spec, job->name);
        if (r < 0)
                return r;
        for (size_t i = 0; i < job->n_options; i++)
                if (job_option_early(job->options[i]->key))
                        job_option_set(spec, job->options[i]->key, job->options[i]->value, e,
                                       sizeof(e)); /* refused again below, in its place */
        for (size_t i = 0; i < job->n_options; i++) {
                r = job_option_set(spec, job->options[i]->key, job->options[i]->value, e,
                                   sizeof(e));
                if (r < 0)
                        goto fail;
        }
        r = job_spec_validate(spec, e, sizeof(e));
        if (r >= 0)
                return 0;
fail:
        snprintf(err, errlen, "job %s: %s", job->name, e);
        job_spec_done(spec);
        return r;
}

Iofleet__Setting *wire_settings(const kvlist_t *kv, Iofleet__Setting ***ptrs)
{
        Iofleet__Setting *v = calloc(kv->n + 1, sizeof(*v));
        *ptrs = calloc(kv->n + 1, sizeof(**ptrs));
        if (!v || !*ptrs) {
                free(v);
                free(*ptrs);
                *ptrs = NULL;
                return NULL;
        }
        for (size_t i = 0; i < kv->n; i++) {
                iofleet__setting__init(&v[i]);
                v[i].key = kv->v[i].key;
                v[i].value = kv->v[i].value;
                (*ptrs)[i] = &v[i];
        }
        return v;
}

/* An agent's run messages: the bodies that carry run_id and a run_seq numbering them. */
bool wire_is_run_message(const envelope_t *e)
{
        switch (e->body_case) {
        case IOFLEET__ENVELOPE__BODY_PREPARED:
        case IOFLEET__ENVELOPE__BODY_STARTED:
        case IOFLEET__ENVELOPE__BODY_INTERVAL:
        case IOFLEET__ENVELOPE__BODY_FINISHED:
        case IOFLEET__ENVELOPE__BODY_RESTORED:
        case IOFLEET__ENVELOPE__BODY_ERROR:
        case IOFLEET__ENVELOPE__BODY_GROUP_READY:
        case IOFLEET__ENVELOPE__BODY_GROUP_STARTED:
        case IOFLEET__ENVELOPE__BODY_LOG_CHUNK:
                return true;
        default:
                return false;
        }
}

/* Field name of a run message's body, found through its descriptor (every run message has
 * run_id and run_seq); NULL for other bodies. */
static void *run_field(const envelope_t *e, const char *name)
{
        const ProtobufCFieldDescriptor *bf, *f;
        ProtobufCMessage *body;
        if (!wire_is_run_message(e))
                return NULL;
        bf = protobuf_c_message_descriptor_get_field(&iofleet__envelope__descriptor,
                                                     (unsigned)e->body_case);
        body = bf ? *(ProtobufCMessage **)((char *)e + bf->offset) : NULL;
        f = body ? protobuf_c_message_descriptor_get_field_by_name(body->descriptor, name) : NULL;
        return f ? (char *)body + f->offset : NULL;
}

uint64_t wire_run_seq(const envelope_t *e)
{
        const uint64_t *seq = run_field(e, "run_seq");
        return seq ? *seq : 0;
}

void wire_set_run_seq(envelope_t *e, uint64_t seq)
{
        uint64_t *p = run_field(e, "run_seq");
        if (p)
                *p = seq;
}

const char *wire_run_id(const envelope_t *e)
{
        char **id = run_field(e, "run_id");
        return id && *id ? *id : "";
}

int64_t wire_finish_hold_ns(uint32_t rank, uint32_t nagents)
{
        int64_t step = WIRE_FINISH_STEP_NS;
        if (nagents > 1 && step * nagents > WIRE_FINISH_SPREAD_MAX_NS)
                step = WIRE_FINISH_SPREAD_MAX_NS / nagents;
        return rank < nagents ? step * rank : 0;
}

static Iofleet__Hist *hist_part(Iofleet__Hist *pb, const hist_t *now, const hist_t *before,
                                hist_t *delta)
{
        if (before)
                hist_delta(delta, now, before);
        else
                hist_snapshot(delta, now);
        return wire_hist_from(pb, delta) == 0 ? pb : NULL;
}

void wire_dir_fill(wire_dir_t *w, const wire_dir_counts_t *now, const wire_dir_counts_t *before,
                   hist_t *scratch)
{
        Iofleet__DirStats *pb = &w->pb;
        iofleet__dir_stats__init(pb);
        memset(w->h, 0, sizeof(w->h));
        pb->bytes = now->bytes - (before ? before->bytes : 0);
        pb->ios = now->ios - (before ? before->ios : 0);
        pb->errors = now->errors - (before ? before->errors : 0);
        pb->short_ios = now->short_ios - (before ? before->short_ios : 0);
        pb->issued = now->issued - (before ? before->issued : 0);
        pb->dropped = now->dropped - (before ? before->dropped : 0);
        pb->clat = hist_part(&w->h[0], now->clat, before ? before->clat : NULL, scratch);
        pb->syncs = now->syncs - (before ? before->syncs : 0);
        pb->verify_errors = now->verify_errors - (before ? before->verify_errors : 0);
        if (before)
                return;
        pb->slat = hist_part(&w->h[1], now->slat, NULL, scratch);
        pb->lat = hist_part(&w->h[2], now->lat, NULL, scratch);
        if (now->sync_lat && now->sync_lat->n)
                pb->sync_lat = hist_part(&w->h[3], now->sync_lat, NULL, scratch);
}

void wire_dir_done(wire_dir_t *w)
{
        for (int i = 0; i < 4; i++)
                wire_hist_done(&w->h[i]);
}

static Iofleet__SampleStat *sample_fill(Iofleet__SampleStat *pb, const fio_sstat_t *s)
{
        iofleet__sample_stat__init(pb);
        pb->min = s->min;
        pb->max = s->max;
        pb->samples = s->samples;
        pb->mean = s->mean;
        pb->s = s->S;
        return pb;
}

Iofleet__FioStats *wire_fio_fill(wire_fio_t *w, const fio_job_stats_t *f)
{
        Iofleet__FioStats *pb = &w->pb;

        iofleet__fio_stats__init(pb);
        pb->n_depth = pb->n_submit = pb->n_complete = FIO_DEPTH_BUCKETS;
        pb->depth = (uint64_t *)f->depth;
        pb->submit = (uint64_t *)f->submit;
        pb->complete = (uint64_t *)f->complete;
        pb->total_submit = f->total_submit;
        pb->total_complete = f->total_complete;
        pb->usr_ns = f->usr_ns;
        pb->sys_ns = f->sys_ns;
        pb->ctx = f->ctx;
        pb->majf = f->majf;
        pb->minf = f->minf;
        pb->run_ns = f->run_ns;
        pb->read_bw = sample_fill(&w->ss[0], &f->bw[0]);
        pb->write_bw = sample_fill(&w->ss[1], &f->bw[1]);
        pb->read_iops = sample_fill(&w->ss[2], &f->iops[0]);
        pb->write_iops = sample_fill(&w->ss[3], &f->iops[1]);
        pb->latency_depth = f->latency_depth;
        return pb;
}

static void sample_read(fio_sstat_t *s, const Iofleet__SampleStat *pb)
{
        memset(s, 0, sizeof(*s));
        if (!pb)
                return;
        s->min = pb->min;
        s->max = pb->max;
        s->samples = pb->samples;
        s->mean = pb->mean;
        s->S = pb->s;
}

void wire_fio_add(fio_job_stats_t *f, const Iofleet__FioStats *pb)
{
        fio_job_stats_t one;

        if (!pb)
                return;
        memset(&one, 0, sizeof(one));
        for (size_t i = 0; i < FIO_DEPTH_BUCKETS; i++) {
                one.depth[i] = i < pb->n_depth ? pb->depth[i] : 0;
                one.submit[i] = i < pb->n_submit ? pb->submit[i] : 0;
                one.complete[i] = i < pb->n_complete ? pb->complete[i] : 0;
        }
        one.total_submit = pb->total_submit;
        one.total_complete = pb->total_complete;
        one.usr_ns = pb->usr_ns;
        one.sys_ns = pb->sys_ns;
        one.ctx = pb->ctx;
        one.majf = pb->majf;
        one.minf = pb->minf;
        one.run_ns = pb->run_ns;
        sample_read(&one.bw[0], pb->read_bw);
        sample_read(&one.bw[1], pb->write_bw);
        sample_read(&one.iops[0], pb->read_iops);
        sample_read(&one.iops[1], pb->write_iops);
        one.latency_depth = pb->latency_depth;
        fio_job_stats_add(f, &one);
}
