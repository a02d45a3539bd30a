/* fio's names that iofleet knows but does not implement yet: job options and option values. */
#include "options-fio.h"

#include <stddef.h>

const char job_fio_unsupported_options[] =
    /* job description, files */
    "filetype lockfile allow_mounted_write fill_device fill_fs write_hint sync "
    "sync_file_range write_barrier uncached "
    /* sizes and offsets */
    "offset_align num_range "
    /* block sizes and buffers */
    "bs_is_seq_rand dedupe_global iomem mem iomem_align mem_align "
    "hugepage-size lockmem atomic "
    /* I/O type and pattern */
    "softrandommap sprandom "
    /* depth and submission */
    "iodepth_batch_complete_max iodepth_low serialize_overlap "
    /* rates and latency targets */
    "rate_ignore_thinktime flow flow_id flow_sleep flow_watermark "
    /* verification and trim */
    "verify_pattern_interval verify_dump verify_async verify_async_cpus "
    "verify_state_load verify_state_save verify_write_sequence "
    "verify_header_seed experimental_verify trim_percentage trim_verify_zero trim_backlog "
    "trim_backlog_batch "
    /* replay */
    "read_iolog read_iolog_chunked write_iolog replay_no_stall replay_redirect replay_scale "
    "replay_align replay_time_scale replay_skip merge_blktrace_file merge_blktrace_scalars "
    "merge_blktrace_iters "
    /* processes, CPUs, priorities */
    "cgroup cgroup_weight cgroup_nodelete uid gid gtod_cpu clocksource "
    /* statistics and logs */
    "log_prio log_compression "
    "log_compression_cpus log_store_compressed log_unix_epoch log_alternate_epoch "
    "log_alternate_epoch_clock_id block_error_percentiles ss_interval "
    /* zones */
    "zonemode zonerange zonesize zonecapacity zoneskip read_beyond_wp max_open_zones "
    "job_max_open_zones ignore_zone_limits zone_reset_threshold zone_reset_frequency "
    /* engine-specific options of engines iofleet has */
    "fixedbufs registerfiles sqthread_poll sqthread_poll_cpu nonvectored force_async "
    "userspace_reap nowait cmdprio_percentage cmdprio_class cmdprio cmdprio_bssplit "
    /* command-line flags that shape the output or the run */
    "output output-format minimal append-terse terse-version status-interval section "
    "bandwidth-log warnings-fatal max-jobs alloc-size idle-prof aux-path server client "
    "daemonize remote-config trigger trigger-file trigger-timeout trigger-remote";

const char *const job_fio_unsupported_rw[] = {
    "trim", "randtrim", "trimwrite", "randtrimwrite", "filecreate", "filestat", "filedelete", NULL,
};

const char *const job_fio_unsupported_engines[] = {
    "io_uring_cmd", "solarisaio", "windowsaio", "splice",  "netsplice",  "sg",
    "libzbc",       "net",        "cpuio",      "rdma",    "rbd",        "rados",
    "e4defrag",     "gfapi",      "gfapi_async", "libhdfs", "pmemblk",   "libpmem",
    "dev-dax",      "ime_psync",  "ime_psyncv", "ime_aio", "libiscsi",   "http",
    "nbd",          "exec",       "xnvme",      "libblkio", "libcufile", "dfs",
    "mtd",          "external",   NULL,
};

const char *const job_fio_unsupported_verify[] = {
    "crc64",    "crc32",    "crc16",    "crc7",        "sha1", "sha512",
    "sha3-224", "sha3-256", "sha3-384", "sha3-512", "pattern_hdr", NULL,
};
