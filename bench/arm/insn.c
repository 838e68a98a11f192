/* insn.c: counts the guest instructions a program runs under qemu's user
 * mode (bench/ears_arm.py builds and loads it), each guest thread apart.
 *
 * qemu 7.2's TCG plugin interface, version 1 (qemu_plugin_v1.h: Debian
 * ships neither the plugin header nor a counting plugin). On each translated block, a callback adds the block's instruction
 * count to its thread's tally every time the block runs (a thread is a
 * vCPU in user mode; an index may be reused after a thread ends). At exit
 * the tallies go to the file named by the argument out=FILE, one line:
 *     "<vcpu>=<instructions> <vcpu>=<instructions> ..."
 */
#include <inttypes.h>
#include <stdbool.h>

#include "qemu_plugin_v1.h"

#define THREADS 256
static uint64_t tally[THREADS];

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
    FILE *out = open_out();
    if (out == NULL)
        return;
    for (int i = 0; i < THREADS; i++)
        if (tally[i])
            fprintf(out, "%d=%" PRIu64 " ", i, tally[i]);
    fprintf(out, "\n");
    close_out(out);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
                                                               const void *info,
                                                               int argc, char **argv)
{
    (void)info;
    take_out_path(argc, argv);
    qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
    qemu_plugin_register_atexit_cb(id, finished, NULL);
    return 0;
}
