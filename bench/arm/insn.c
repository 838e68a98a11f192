/* insn.c: counts the guest instructions a program runs under qemu's user
 * mode (bench/ears_arm.py builds and loads it), each guest thread apart.
 *
 * qemu 7.2's TCG plugin interface, version 1. Debian ships neither the
 * plugin header nor a counting plugin, so the few calls used are declared
 * here. On each translated block, a callback adds the block's instruction
 * count to its thread's tally every time the block runs (a thread is a
 * vCPU in user mode; an index may be reused after a thread ends). At exit
 * the tallies go to the file named by the argument out=FILE, one line:
 *     "<vcpu>=<instructions> <vcpu>=<instructions> ..."
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct {
    const char *target_name;
    struct {
        int min;
        int cur;
    } version;
    bool system_emulation;
    union {
        struct {
            int smp_vcpus;
            int max_vcpus;
        } system;
    };
} qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*udata_cb)(qemu_plugin_id_t id, void *userdata);
typedef void (*vcpu_udata_cb)(unsigned int vcpu_index, void *userdata);
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, vcpu_udata_cb cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

#define THREADS 256
static uint64_t tally[THREADS];
static char out_path[4096];

static void ran(unsigned int vcpu, void *n_insns)
{
    tally[vcpu % THREADS] += (uint64_t)(uintptr_t)n_insns;
}

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    qemu_plugin_register_vcpu_tb_exec_cb(tb, ran, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)n);
}

static void finished(qemu_plugin_id_t id, void *userdata)
{
    (void)id;
    (void)userdata;
    FILE *out = out_path[0] ? fopen(out_path, "w") : stderr;
    if (out == NULL)
        return;
    for (int i = 0; i < THREADS; i++)
        if (tally[i])
            fprintf(out, "%d=%" PRIu64 " ", i, tally[i]);
    fprintf(out, "\n");
    if (out != stderr)
        fclose(out);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
                                                               const qemu_info_t *info,
                                                               int argc, char **argv)
{
    (void)info;
    for (int i = 0; i < argc; i++)
        if (strncmp(argv[i], "out=", 4) == 0)
            snprintf(out_path, sizeof out_path, "%s", argv[i] + 4);
    qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
    qemu_plugin_register_atexit_cb(id, finished, NULL);
    return 0;
}
