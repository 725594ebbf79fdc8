"""A small policy-gradient agent trained on weft's scheduling environment, and its learning curve.

    bash scripts/install-deps.sh --torch          # Debian's python3-torch, on demand
    PYTHONPATH=build/python /usr/bin/python3 python/examples/train_pg.py --minutes 3 --plot curve.png

The environment is the job-order one (docs/python.md, "The scheduling environment"): at each decision
the agent picks which candidate job to serve. The workload is the first --jobs jobs of the bundled
default workload (TPC-H query DAGs, arriving over time) on --machines 16-core machines, so that jobs
compete (their input locality is dropped: the machines it names are not in this cluster). The
agent scores each candidate row with a small network shared across rows (its features, its rank in
fifo's order and the free cpu), a softmax over the candidates, and is trained by REINFORCE
with the environment's reward (minus jobs in the system times elapsed time, so the return is minus
the sum of the JCTs) against a running-mean baseline. Each iteration is one episode; the curve is
the average JCT of each training episode (sampled actions) and of a greedy evaluation every
--eval-every episodes, next to two fixed policies on the same episodes: fifo (the first candidate)
and Decima's dynamic-partition heuristic in the job-order role (weft.DynamicPartition).
On 2 cores, one thread for torch. Prints one line per iteration; nothing is tuned to a result.
"""
import argparse
import json
import time

import numpy as np
import torch

import weft
from weft.env import JOB_FEATURES


def workload(jobs, machines):
    doc = json.load(open("examples/default.json"))
    capacity = {"cpu": 16, "mem": 64, "disk": 200, "net": 1250}  # the default workload's std machine
    cluster = {"machines": [{"name": "m", "count": machines, "capacity": capacity}]}
    picked = sorted(doc["jobs"], key=lambda j: j.get("arrival", 0))[:jobs]
    for job in picked:  # the smaller cluster has not the machines their input is on
        for stage in job["stages"]:
            stage.pop("locality", None)
    return weft.Workload(cluster, picked)


def features(obs):
    """(max_jobs, F) float32: each row's features, log-scaled, its rank in fifo's order and the
    cluster's free cpu fraction; rows past the candidates are zero (masked out)."""
    jobs = obs["jobs"]
    rows = int(obs["mask"].sum())
    rank = np.zeros((len(jobs), 1), np.float32)
    rank[:rows, 0] = np.arange(rows) / max(1, rows - 1)
    free = np.full((len(jobs), 1), obs["cluster"][2], np.float32)
    return np.concatenate([np.sign(jobs) * np.log1p(np.abs(jobs)), rank, free], axis=1).astype(np.float32)


class Scorer(torch.nn.Module):
    """One score per candidate row from its features, the same weights for every row. Episodes run
    a numpy copy of it (a torch call per step would cost more than the environment's step); the
    gradient is computed after the episode over all its steps at once."""

    def __init__(self, inputs, hidden=32):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(inputs, hidden), torch.nn.Tanh(),
                                       torch.nn.Linear(hidden, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)

    def numpy_scorer(self):
        w = [(layer.weight.detach().numpy().T.copy(), layer.bias.detach().numpy().copy())
             for layer in self.net if isinstance(layer, torch.nn.Linear)]

        def score(x):
            h = np.tanh(x @ w[0][0] + w[0][1])
            h = np.tanh(h @ w[1][0] + w[1][1])
            return (h @ w[2][0] + w[2][1])[:, 0]
        return score


def run_episode(env, seed, choose):
    """One episode; choose(obs) -> action. Returns (avg JCT, rewards)."""
    obs, info = env.reset(seed=seed)
    rewards, done = [], False
    while not done:
        obs, reward, terminated, truncated, info = env.step(choose(obs))
        rewards.append(reward)
        done = terminated or truncated
    return float(env.episode()["jobs"].jct.mean()), rewards


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=3.0)
    ap.add_argument("--jobs", type=int, default=25)
    ap.add_argument("--machines", type=int, default=10)
    ap.add_argument("--eval-every", type=int, default=10)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--plot", help="write the learning curve to this PNG (matplotlib)")
    ap.add_argument("--csv", help="write the curve's points to this CSV")
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    env = weft.env.SchedulingEnv(workload=workload(args.jobs, args.machines), seed=args.seed)

    fifo, _ = run_episode(env, args.seed, lambda obs: 0)
    heuristic_agent = weft.DynamicPartition(executors=16 * args.machines)
    heuristic, _ = run_episode(env, args.seed, heuristic_agent.choose)
    print(f"fifo {fifo:.2f} s, dynamic-partition {heuristic:.2f} s (average JCT)")

    scorer = Scorer(len(JOB_FEATURES) + 2)
    optimizer = torch.optim.Adam(scorer.parameters(), lr=args.lr)
    baseline, curve, start, episode = None, [], time.perf_counter(), 0
    while time.perf_counter() - start < args.minutes * 60:
        score = scorer.numpy_scorer()
        xs, masks, actions = [], [], []

        def sample(obs):
            x = features(obs)
            mask = obs["mask"].astype(bool)
            logits = np.where(mask, score(x), -np.inf)
            p = np.exp(logits - logits.max())
            action = int(rng.choice(len(p), p=p / p.sum()))
            xs.append(x), masks.append(mask), actions.append(action)
            return action

        avg_jct, rewards = run_episode(env, args.seed, sample)
        episode_return = sum(rewards)
        baseline = episode_return if baseline is None else 0.9 * baseline + 0.1 * episode_return
        if actions:
            logits = scorer(torch.from_numpy(np.stack(xs)))
            logits = logits.masked_fill(~torch.from_numpy(np.stack(masks)), float("-inf"))
            log_probs = torch.log_softmax(logits, dim=1).gather(1, torch.tensor(actions).unsqueeze(1))
            scale = max(1.0, abs(baseline))
            loss = -((episode_return - baseline) / scale) * log_probs.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        episode += 1
        point = {"episode": episode, "seconds": time.perf_counter() - start, "train_jct": avg_jct,
                 "steps": len(rewards), "greedy_jct": None}
        if episode % args.eval_every == 0:
            greedy_score = scorer.numpy_scorer()
            point["greedy_jct"] = run_episode(
                env, args.seed, lambda obs: int(np.where(obs["mask"].astype(bool), greedy_score(features(obs)), -np.inf).argmax()))[0]
        curve.append(point)
        print(f"episode {episode:4d} {point['seconds']:6.1f} s  steps {len(rewards):5d}  train JCT {avg_jct:7.2f}"
              + (f"  greedy JCT {point['greedy_jct']:7.2f}" if point["greedy_jct"] is not None else ""), flush=True)

    if args.csv:
        with open(args.csv, "w") as f:
            f.write("episode,seconds,steps,train_jct,greedy_jct,fifo_jct,heuristic_jct\n")
            for p in curve:
                g = "" if p["greedy_jct"] is None else f"{p['greedy_jct']:.6f}"
                f.write(f"{p['episode']},{p['seconds']:.3f},{p['steps']},{p['train_jct']:.6f},{g},{fifo:.6f},{heuristic:.6f}\n")
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4))
        ax.plot([p["episode"] for p in curve], [p["train_jct"] for p in curve], lw=0.8, alpha=0.6,
                label="policy gradient (training episodes, sampled)")
        evals = [p for p in curve if p["greedy_jct"] is not None]
        ax.plot([p["episode"] for p in evals], [p["greedy_jct"] for p in evals], "o-", label="policy gradient (greedy)")
        ax.axhline(fifo, color="k", ls="--", label="fifo")
        ax.axhline(heuristic, color="C3", ls=":", label="dynamic partition (Decima's heuristic)")
        ax.set_xlabel("episode")
        ax.set_ylabel("average JCT (s)")
        ax.set_title(f"{args.jobs} TPC-H jobs on {args.machines} x 16 cores, {args.minutes:g} min of training")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)


if __name__ == "__main__":
    main()
