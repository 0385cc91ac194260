# Prints the levers table of joint_levers.md from the joint.csv (and, where
# the jobs swapped contexts, joint_swaps.csv) of the runs named on the
# command line: one row per run and seed with the gaps at T = 50, 100 and
# 200, the Bayes predictor's at T = 200 and the ratio, the teacher-forced
# TV of the model and of the Bayes predictor, the training KL, the steps,
# and the context swaps at T = 200.
BEGIN { FS = "," }
FNR == 1 {
  k = split(FILENAME, p, "/"); run = p[k - 1]; sub(/^incontext-joint-(lever-)?/, "", run)
  if (run == "results") { run = p[k]; sub(/\.csv$/, "", run) }
  swaps = (p[k] == "joint_swaps.csv")
}
FNR > 1 {
  key = run " | " $3
  if (swaps) { if ($4 == 200) { bom[key] = $6; mob[key] = $7 }; next }
  t[key, $4] = $5
  if ($4 == 200) { b[key] = $18; tv[key] = $15; btv[key] = $19; kl[key] = $10; st[key] = $13 " + " $14 }
  if (!(key in seen)) { seen[key] = 1; order[++n] = key }
}
END {
  print "| run | seed | steps | T = 50 | T = 100 | T = 200 | Bayes, T = 200 | ÷ Bayes | TV: model / Bayes | train KL | Bayes on the transformer's histories, T = 200 | transformer on the Bayes predictors', T = 200 |"
  print "|---|---|---|---|---|---|---|---|---|---|---|---|"
  for (i = 1; i <= n; i++) {
    r = order[i]
    printf "| %s | %s | %.4f | %.4f | %.4f | %.4f | %.3f | %.3f / %.3f | %.4f | %s | %s |\n", r, st[r], t[r, 50], t[r, 100], t[r, 200], b[r], t[r, 200] / b[r], tv[r], btv[r], kl[r], (r in bom) ? sprintf("%.4f", bom[r]) : "–", (r in mob) ? sprintf("%.4f", mob[r]) : "–"
  }
}
