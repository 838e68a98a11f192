/* a72.c: the events that cost a Cortex-A72 cycles beyond its instructions,
 * counted on a program run under qemu's user mode (bench/ears_arm.py builds
 * and loads it): branches mispredicted and cache lines missed, on a plain
 * model of the Raspberry Pi 4's core. Only the first guest thread (vCPU 0)
 * is followed: the one that does the work in every program counted here.
 *
 * The model, the same for every program it is run on (ears_arm.py compares
 * the listening work with n-body, whose time on a Pi 4 is published):
 *   - conditional branches: gshare, 14 bits of global history, 16 K
 *     two-bit counters;
 *   - indirect branches (BR, BLR): the last target seen at (address xor
 *     history), 4 K entries; returns: a 32-deep return stack;
 *   - caches of 64-byte lines, least recently used: L1 instructions 48 KB
 *     3-way, L1 data 32 KB 2-way, L2 1 MB 16-way (all four cores' on a Pi:
 *     here the program's alone);
 *   - a miss at any level is a "stream" one where one of the two lines
 *     before it was missed at that level among its last 32 misses (what a
 *     prefetcher fetches ahead), else "random".
 * A getppid() system call by the program empties all three caches (the
 * work's "cold" run calls it before each block: a wake with nothing left).
 * At exit, one line to the file out=FILE:
 *   insns=N cond=N cond_miss=N indirect=N indirect_miss=N ret_miss=N l1d=N
 *   l1i_stream=N l1i_random=N l1d_stream=N l1d_random=N l2_stream=N l2_random=N
 * qemu 7.2's TCG plugin interface, version 1 (qemu_plugin_v1.h).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>

#include "qemu_plugin_v1.h"

#define LINE 6 /* 64-byte lines */
#define GETPPID 173 /* aarch64 */

/* --- caches ---------------------------------------------------------------- */
struct cache {
    unsigned sets, ways;
    uint64_t *tag; /* sets * ways, 0: empty (tags are line + 1) */
    uint64_t *used; /* when each way was last touched */
    uint64_t clock;
};

static void cache_init(struct cache *c, unsigned bytes, unsigned ways)
{
    c->ways = ways;
    c->sets = (bytes >> LINE) / ways;
    c->tag = calloc((size_t)c->sets * ways, sizeof *c->tag);
    c->used = calloc((size_t)c->sets * ways, sizeof *c->used);
    c->clock = 0;
}

static void cache_empty(struct cache *c)
{
    memset(c->tag, 0, (size_t)c->sets * c->ways * sizeof *c->tag);
}

/* true: a hit; a miss brings the line in, in place of the least recently used */
static bool cache_touch(struct cache *c, uint64_t line)
{
    uint64_t *tag = c->tag + (line % c->sets) * c->ways;
    uint64_t *used = c->used + (line % c->sets) * c->ways;
    unsigned oldest = 0;
    c->clock++;
    for (unsigned w = 0; w < c->ways; w++) {
        if (tag[w] == line + 1) {
            used[w] = c->clock;
            return true;
        }
        if (tag[w] == 0 || used[w] < used[oldest])
            oldest = w;
        if (tag[w] == 0)
            break;
    }
    tag[oldest] = line + 1;
    used[oldest] = c->clock;
    return false;
}

static struct cache l1i, l1d, l2;

/* The last 32 lines missed at a level: a miss one or two lines past one of
 * them is a stream's (what a prefetcher fetches ahead), else random. */
struct misses {
    uint64_t recent[32];
    unsigned at;
    uint64_t stream, random;
};

static void missed(struct misses *m, uint64_t line)
{
    bool stream = false;
    for (unsigned k = 0; k < 32; k++)
        if (m->recent[k] + 1 == line || m->recent[k] + 2 == line)
            stream = true;
    m->recent[m->at++ % 32] = line;
    if (stream)
        m->stream++;
    else
        m->random++;
}

static struct misses l1i_miss, l1d_miss, l2_miss;

static struct {
    uint64_t insns, cond, cond_miss, indirect, indirect_miss, ret_miss, l1d;
} n;

static void l2_touch(uint64_t line)
{
    if (!cache_touch(&l2, line))
        missed(&l2_miss, line);
}

/* --- branches -------------------------------------------------------------- */
enum kind { PLAIN, COND, JUMP, CALL, INDIRECT, INDIRECT_CALL, RETURN };

static uint8_t counters[1 << 14];
static uint64_t history;
static uint64_t targets[1 << 12];
static uint64_t stack[32];
static unsigned depth;

static enum kind kind_of(uint32_t w)
{
    if ((w & 0xFF000010u) == 0x54000000u || (w & 0x7E000000u) == 0x34000000u ||
        (w & 0x7E000000u) == 0x36000000u)
        return COND; /* B.cond, CBZ/CBNZ, TBZ/TBNZ */
    if ((w & 0xFC000000u) == 0x14000000u)
        return JUMP;
    if ((w & 0xFC000000u) == 0x94000000u)
        return CALL;
    if ((w & 0xFFFFFC1Fu) == 0xD61F0000u)
        return INDIRECT;
    if ((w & 0xFFFFFC1Fu) == 0xD63F0000u)
        return INDIRECT_CALL;
    if ((w & 0xFFFFFC1Fu) == 0xD65F0000u || w == 0xD65F0BFFu || w == 0xD65F0FFFu)
        return RETURN;
    return PLAIN;
}

struct block {
    uint64_t start, end; /* [start, end): its code */
    uint64_t last; /* its last instruction's address */
    size_t insns;
    enum kind kind;
};

static const struct block *previous;

static void resolve(const struct block *b, uint64_t next)
{
    uint64_t after = b->end;
    switch (b->kind) {
    case COND: {
        bool taken = next != after;
        unsigned at = (unsigned)((b->last >> 2) ^ history) & ((1u << 14) - 1);
        bool guess = counters[at] >= 2;
        n.cond++;
        if (guess != taken)
            n.cond_miss++;
        if (taken && counters[at] < 3)
            counters[at]++;
        if (!taken && counters[at] > 0)
            counters[at]--;
        history = ((history << 1) | taken) & ((1u << 14) - 1);
        break;
    }
    case INDIRECT:
    case INDIRECT_CALL: {
        unsigned at = (unsigned)((b->last >> 2) ^ (history * 0x9E37u)) & ((1u << 12) - 1);
        n.indirect++;
        if (targets[at] != next)
            n.indirect_miss++;
        targets[at] = next;
        if (b->kind == INDIRECT_CALL)
            stack[depth++ % 32] = after;
        break;
    }
    case CALL:
        stack[depth++ % 32] = after;
        break;
    case RETURN:
        if (depth == 0 || stack[--depth % 32] != next)
            n.ret_miss++;
        break;
    default:
        break;
    }
}

static void ran(unsigned int vcpu, void *userdata)
{
    const struct block *b = userdata;
    if (vcpu != 0)
        return;
    if (previous != NULL)
        resolve(previous, b->start);
    previous = b;
    n.insns += b->insns;
    for (uint64_t line = b->start >> LINE; line <= (b->end - 1) >> LINE; line++)
        if (!cache_touch(&l1i, line)) {
            missed(&l1i_miss, line);
            l2_touch(line);
        }
}

static void accessed(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
                     void *userdata)
{
    (void)info;
    (void)userdata;
    if (vcpu != 0)
        return;
    n.l1d++;
    if (!cache_touch(&l1d, vaddr >> LINE)) {
        missed(&l1d_miss, vaddr >> LINE);
        l2_touch(vaddr >> LINE);
    }
}

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t count = qemu_plugin_tb_n_insns(tb);
    struct block *b = calloc(1, sizeof *b);
    b->insns = count;
    for (size_t i = 0; i < count; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t at = qemu_plugin_insn_vaddr(insn);
        if (i == 0)
            b->start = at;
        b->end = at + qemu_plugin_insn_size(insn);
        if (i + 1 == count) {
            uint32_t word;
            memcpy(&word, qemu_plugin_insn_data(insn), sizeof word);
            b->last = at;
            b->kind = kind_of(word);
        }
        qemu_plugin_register_vcpu_mem_cb(insn, accessed, QEMU_PLUGIN_CB_NO_REGS,
                                         QEMU_PLUGIN_MEM_RW, NULL);
    }
    qemu_plugin_register_vcpu_tb_exec_cb(tb, ran, QEMU_PLUGIN_CB_NO_REGS, b);
}

static void called(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1,
                   uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6,
                   uint64_t a7, uint64_t a8)
{
    (void)id, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5, (void)a6, (void)a7, (void)a8;
    if (vcpu == 0 && num == GETPPID) {
        cache_empty(&l1i);
        cache_empty(&l1d);
        cache_empty(&l2);
    }
}

static void finished(qemu_plugin_id_t id, void *userdata)
{
    (void)id;
    (void)userdata;
    FILE *out = open_out();
    if (out == NULL)
        return;
    fprintf(out,
            "insns=%" PRIu64 " cond=%" PRIu64 " cond_miss=%" PRIu64 " indirect=%" PRIu64
            " indirect_miss=%" PRIu64 " ret_miss=%" PRIu64 " l1d=%" PRIu64
            " l1i_stream=%" PRIu64 " l1i_random=%" PRIu64 " l1d_stream=%" PRIu64
            " l1d_random=%" PRIu64 " l2_stream=%" PRIu64 " l2_random=%" PRIu64 "\n",
            n.insns, n.cond, n.cond_miss, n.indirect, n.indirect_miss, n.ret_miss, n.l1d,
            l1i_miss.stream, l1i_miss.random, l1d_miss.stream, l1d_miss.random, l2_miss.stream,
            l2_miss.random);
    close_out(out);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
                                                               const void *info, int argc,
                                                               char **argv)
{
    (void)info;
    take_out_path(argc, argv);
    cache_init(&l1i, 48 * 1024, 3);
    cache_init(&l1d, 32 * 1024, 2);
    cache_init(&l2, 1024 * 1024, 16);
    qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
    qemu_plugin_register_vcpu_syscall_cb(id, called);
    qemu_plugin_register_atexit_cb(id, finished, NULL);
    return 0;
}
