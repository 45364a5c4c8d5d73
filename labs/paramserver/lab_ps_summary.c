/*
 * lab_ps_summary.c — the parameter-server lab's summary: the figures the
 * lessons grade against (lab_paramserver.c explains the ones that need
 * care), from the workers' timed steps, the shards' bytes, the loss and the
 * final weights, beside the course's prediction of the communication time.
 *
 * Uses the lab framework (lab_author.h: figures) and the master's state and the
 * course arithmetic (lab_ps.h).
 */
#include "labs/paramserver/lab_ps.h"

#include <math.h>

void lab_ps_summary(struct psm *r)
{
    struct lab_ctx *cx = r->cx;
    const struct ps_cfg *c = &r->cfg;
    double step = 0, comp = 0, wait = 0, comm = 0, mbps = 0;
    int nw = 0, nb = 0;
    for (int w = 0; w < r->W; w++) {
        if (r->n_timed[w] == 0)
            continue;
        double k = (double)r->n_timed[w];
        step += r->sum_step[w] / k;
        comp += r->sum_compute[w] / k;
        wait += r->sum_wait[w] / k;
        comm += r->sum_comm[w] / k;
        nw++;
        if (r->sum_xfer[w] > 0 && r->xfer_bytes[w] > 0) {
            mbps += (double)r->xfer_bytes[w] / r->sum_xfer[w] / 1e6;
            nb++;
        }
    }
    if (nw == 0)
        return;
    step = 1000 * step / nw;
    comp = 1000 * comp / nw;
    wait = 1000 * wait / nw;
    double comm_ms = step - comp;
    double frac = step > 0 ? comm_ms / step : 0;

    lab_figure_num(cx, "comm_fraction", frac, "",
                   "communication fraction (step - compute) / step, measured");
    lab_figure_str(cx, "mode", lab_ps_mode_name(c->mode), "consistency mode");
    lab_figure_num(cx, "step_ms", step, "ms", "mean wall time of one worker step");
    lab_figure_num(cx, "compute_ms_mean", comp, "ms", "measured compute per step");
    lab_figure_num(cx, "comm_ms", comm_ms, "ms", "step minus compute: communication and waiting");
    if (c->link.bytes_per_s > 0) {
        double t = c->mode == PS_ALLREDUCE
                       ? lab_ps_predict_ring_s(c->params, c->workers, c->link.bytes_per_s)
                       : lab_ps_predict_comm_s(c->params, c->link.bytes_per_s);
        double cms = c->compute_s * 1000;
        lab_figure_num(cx, "predicted_comm_ms", 1000 * t, "ms",
                       c->mode == PS_ALLREDUCE ? "course model: 2(W-1)/W x 4 B x params / link"
                                               : "course model: 2 x 4 B x params / link");
        lab_figure_num(cx, "predicted_comm_fraction", t * 1000 / (t * 1000 + cms), "",
                       "course model: t_comm / (t_comm + compute_ms)");
        lab_figure_num(cx, "link_mb_s", c->link.bytes_per_s / 1e6, "MB/s",
                       "emulated link, each direction of each connection");
    }
    int64_t n_loss = r->next_emit;
    if (n_loss > 0) {
        int64_t k = n_loss / 10 > 1 ? n_loss / 10 : 1;
        double fin = 0;
        for (int64_t t = n_loss - k; t < n_loss; t++)
            fin += r->loss_by_step[t];
        lab_figure_num(cx, "final_loss", fin / (double)k, "",
                       "mean training loss over the last tenth of the steps");
        lab_figure_num(cx, "initial_loss", r->initial_loss, "", "training loss at step 0");
    }
    double train_s = r->t_last - r->t_first;
    if (train_s > 0) {
        /* the sum of the workers' own rates: what they deliver together
         * while all run (a fast async worker that finished early does not
         * count as idle until the straggler ends) */
        double ups = 0;
        for (int w = 0; w < r->W; w++)
            if (r->n_timed[w] > 0 && r->sum_step[w] > 0)
                ups += (double)r->n_timed[w] / r->sum_step[w];
        lab_figure_num(cx, "updates_per_s", ups, "/s",
                       "gradient updates per second, all workers (sum of their step rates)");
        lab_figure_num(cx, "samples_per_s", ups * c->batch, "/s", "examples trained per second");
        if (r->S > 0) {
            double sum = 0;
            for (int s = 0; s < r->S; s++)
                sum += (double)r->shard_bytes[s];
            lab_figure_num(cx, "wire_mb_s", sum / r->S / train_s / 1e6, "MB/s",
                           "bytes on the wire per second per server shard (in + out), mean");
        }
    }
    if (c->mode == PS_ASYNC || c->mode == PS_SSP)
        lab_figure_num(cx, "max_staleness", (double)r->max_gap, "steps",
                       "largest gap between a worker's step and the slowest worker's");
    if (c->mode == PS_ALLREDUCE && comm > 0) {
        double ar_s = comm / nw;
        double algbw = 4.0 * (double)c->params / ar_s / 1e9;
        lab_figure_num(cx, "allreduce_ms", 1000 * ar_s, "ms", "mean time of one all-reduce");
        lab_figure_num(cx, "algbw_gbs", algbw, "GB/s",
                       "algorithm bandwidth: gradient bytes / time");
        lab_figure_num(cx, "busbw_gbs", lab_ps_busbw(algbw, c->workers), "GB/s",
                       "bus bandwidth (nccl-tests): algbw x 2(W-1)/W");
    }
    lab_figure_num(cx, "wait_ms_mean", wait, "ms",
                   "per worker step, time held by a barrier or the staleness bound");
    if (nb > 0)
        lab_figure_num(cx, "pushpull_mb_s", mbps / nb, "MB/s",
                       "transfer rate of one connection: pull replies' bytes / their time "
                       "from the shard's send to the worker's last byte");
    int64_t done = 0;
    for (int w = 0; w < r->W; w++)
        done = r->reported[w] > done ? r->reported[w] : done;
    lab_figure_num(cx, "steps_done", (double)done, "", "steps completed");
    lab_figure_num(cx, "workers", c->workers, "", "workers started");
    lab_figure_num(cx, "servers", r->S, "", "server shards");
    lab_figure_num(cx, "params", (double)c->params, "", "model parameters");
    lab_figure_num(cx, "workers_lost", r->workers_lost, "", "workers that died");
    if (r->S > 0) {
        lab_figure_num(cx, "shard_restarts", r->restarts, "", "shards restarted from a checkpoint");
        lab_figure_num(cx, "checkpoints", r->n_ckpt, "", "checkpoints the master received");
    }
    if (r->final_w) {
        char fnv[17];
        double l2 = 0;
        for (int64_t i = 0; i < c->params; i++)
            l2 += (double)r->final_w[i] * r->final_w[i];
        lab_ps_weights_fnv(r->final_w, (size_t)c->params, fnv);
        lab_figure_str(cx, "weights_fnv", fnv, "FNV-1a of the final weights' bytes");
        lab_figure_num(cx, "weights_norm", sqrt(l2), "", "L2 norm of the final weights");
    }
    lab_ps_emit_snapshots(r);
    lab_log(cx, LAB_LOG_INFO,
            "%s: %.1f ms per step = %.1f compute + %.1f communication (%.0f %%)%s",
            lab_ps_mode_name(c->mode), step, comp, comm_ms, 100 * frac,
            c->link.bytes_per_s > 0 ? ""
            : c->mpi                ? "; link=off: the network's own speed (Open MPI)"
                                    : "; link=off: the sockets' own speed");
}
