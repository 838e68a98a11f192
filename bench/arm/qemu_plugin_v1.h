/* qemu_plugin_v1.h: the part of qemu 7.2's TCG plugin interface (version 1)
 * that bench/arm/insn.c and bench/arm/a72.c use, declared here because
 * Debian ships no plugin header; and the one way both report: a line to
 * the file named by the plugin's argument out=FILE (standard error without
 * one). */
#ifndef COMPANION_QEMU_PLUGIN_V1_H
#define COMPANION_QEMU_PLUGIN_V1_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };
typedef void (*udata_cb)(qemu_plugin_id_t id, void *userdata);
typedef void (*vcpu_udata_cb)(unsigned int vcpu_index, void *userdata);
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*mem_cb)(unsigned int vcpu_index, qemu_plugin_meminfo_t info, uint64_t vaddr,
                       void *userdata);
typedef void (*syscall_cb)(qemu_plugin_id_t id, unsigned int vcpu_index, int64_t num,
                           uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5,
                           uint64_t a6, uint64_t a7, uint64_t a8);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, vcpu_udata_cb cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, mem_cb cb,
                                      enum qemu_plugin_cb_flags flags,
                                      enum qemu_plugin_mem_rw rw, void *userdata);
void qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t id, syscall_cb cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static char out_path[4096];

/* Keep out=FILE from the plugin's arguments. */
static void take_out_path(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strncmp(argv[i], "out=", 4) == 0)
            snprintf(out_path, sizeof out_path, "%s", argv[i] + 4);
}

/* Where the report goes: out=FILE, else standard error; NULL if it cannot be opened. */
static FILE *open_out(void)
{
    return out_path[0] ? fopen(out_path, "w") : stderr;
}

static void close_out(FILE *out)
{
    if (out != stderr)
        fclose(out);
}

#endif
