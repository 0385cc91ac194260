# Prints the scaling table of joint_scaling.md from the joint.csv (and,
# where the jobs swapped contexts, joint_swaps.csv) of the runs named on
# the command line: one row per run with its model, steps, training games
# and training compute, the gaps at T = 200 of the transformer and of the
# Bayes predictor and their ratio, the teacher-forced TV of the model and
# of the Bayes predictor, the training KL and the context swaps at T = 200;
# then, per family, rewards, seed and model size, the least-squares line
# of log(ratio − 1) on log(compute) and the compute at which it reaches
# the issue's target ratio (1.2 with low noise, 1.25 in Markov games,
# 1.15 otherwise). Runs of lever-… folders (another protocol) are fitted
# only across model sizes: runs of one protocol and depth whose folder
# names differ only in the width D of LxD make a width ladder, printed
# where it has two runs or more.
#
# A run's folder name carries what the CSV does not: LxD (layers × width,
# default 2x64) and gamesN (training games, default 10,000 in matrix
# games and 2,000 in Markov games). Training compute counts the
# optimiser steps of both rounds (steps and on-policy steps, batch 32) at
# 3 × the forward pass's flops on sequences of 1 + 200 positions (1 + 400
# in two-state Markov games), the formula of examples/transformerbench's
# trainFLOPs with feed-forward width 4D and 3 logits; validation passes,
# labelling and play are left out.
BEGIN { FS = ","; order_n = 0 }
FNR == 1 {
  k = split(FILENAME, p, "/"); run = p[k - 1]; lever = (run ~ /^incontext-joint-lever-/); sub(/^incontext-joint-(scale-|lever-)?/, "", run)
  if (run == "results") { run = p[k]; sub(/\.csv$/, "", run); sub(/^joint_/, "", run) }
  swaps = (p[k] == "joint_swaps.csv")
  L = 2; D = 64
  if (match(run, /[0-9]+x[0-9]+/)) { split(substr(run, RSTART, RLENGTH), lw, "x"); L = lw[1]; D = lw[2] }
  proto = run; if (lever) sub(/-[0-9]+x[0-9]+/, "", proto)
  games = ""
  if (match(run, /games[0-9]+/)) games = substr(run, RSTART + 5, RLENGTH - 5)
}
FNR > 1 {
  key = run " | " $1 " " $2 " | " $3
  if (swaps) { if ($4 == 200) { bom[key] = $6; mob[key] = $7 }; next }
  if ($4 != 200) next
  markov = ($1 ~ /^markov/)
  T = markov ? 401 : 201
  g = games != "" ? games : (markov ? 2000 : 10000)
  F = 4 * D
  layer = 2*T*D*3*D + 2*T*D*D + 4*T*D*F + 2*T*(T+1)*D
  flops = 3 * (L*layer + 2*T*D*3) * 32 * ($13 + $14)
  series = $1 " " $2 ", seed " $3 ", " L "×" D
  if (lever) series = $1 " " $2 ", seed " $3 ", " proto ", " L " layers by width"
  if (!(key in seen)) { seen[key] = 1; order[++order_n] = key }
  ser[key] = series; size[key] = L "×" D; st[key] = $13 " + " $14; gm[key] = g; pf[key] = flops / 1e12
  gap[key] = $5; b[key] = $18; tv[key] = $15; btv[key] = $19; kl[key] = $10
}
END {
  print "| run | rewards | seed | model | steps | training games | training compute (TFLOP) | transformer, T = 200 | Bayes predictor, T = 200 | ÷ Bayes | TV: model / Bayes | train KL | Bayes on the transformer's histories | transformer on the Bayes predictors' |"
  print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  for (i = 1; i <= order_n; i++) {
    r = order[i]; split(r, parts, " \\| ")
    printf "| %s | %s | %s | %s | %s | %s | %.1f | %.4f | %.4f | %.3f | %.3f / %s | %.4f | %s | %s |\n", parts[1], parts[2], parts[3], size[r], st[r], gm[r], pf[r], gap[r], b[r], gap[r] / b[r], tv[r], (btv[r] ~ /^[Nn]a[Nn]$/) ? "–" : sprintf("%.3f", btv[r]), kl[r], (r in bom) ? sprintf("%.4f", bom[r]) : "–", (r in mob) ? sprintf("%.4f", mob[r]) : "–"
    s = ser[r]
    if (!(s in sseen)) { sseen[s] = 1; sorder[++sorder_n] = s }
    if (b[r] > 0 && gap[r] > b[r]) {
      x = log(pf[r]); y = log(gap[r] / b[r] - 1)
      n[s]++; sx[s] += x; sy[s] += y; sxx[s] += x*x; sxy[s] += x*y
      if (pf[r] > cmax[s]) cmax[s] = pf[r]
    }
  }
  print ""
  for (j = 1; j <= sorder_n; j++) {
    s = sorder[j]
    target = (s ~ /^markov/) ? 1.25 : (s ~ / low,/) ? 1.2 : 1.15
    if (s ~ /by width$/ && n[s] < 2) continue
    if (n[s] < 2) { printf "%s: %d run(s) above the Bayes predictor, no fit\n", s, n[s]; continue }
    den = n[s]*sxx[s] - sx[s]*sx[s]
    if (den <= 1e-9 * n[s] * sxx[s]) { printf "%s: %d runs at one compute, no fit\n", s, n[s]; continue }
    slope = (n[s]*sxy[s] - sx[s]*sy[s]) / den
    icpt = (sy[s] - slope*sx[s]) / n[s]
    if (slope >= 0) { printf "%s: %d runs, ratio − 1 ∝ compute^%.2f: does not fall with compute\n", s, n[s], slope; continue }
    need = exp((log(target - 1) - icpt) / slope)
    printf "%s: %d runs, ratio − 1 ∝ compute^%.2f; ratio %.2f at %.3g TFLOP, %s× the largest run's compute\n", s, n[s], slope, target, need, sprintf(need / cmax[s] < 10 ? "%.1f" : "%.0f", need / cmax[s])
  }
}
