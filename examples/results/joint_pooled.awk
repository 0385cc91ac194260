# Pools the joint.csv files named on the command line (one row per seed
# and T; every seed of every file counts once) and prints, per T, the mean
# gaps of the transformer, the plug-in posterior-Nash player and the Bayes
# predictor over the seeds, and the ratio of the transformer's mean to the
# Bayes predictor's with its standard error over the seeds (the delta
# method: with r = Σt/Σb and d_i = t_i − r·b_i, SE(r) = sd(d)/(√n·mean b)),
# then the paired difference transformer − plug-in at the longest T with
# its t over the seeds. Where the files hold no plug-in player (Markov
# games) its column reads "–" and the paired difference is left out.
BEGIN { FS = "," }
FNR > 1 {
  T = $4; k = FILENAME " " $3
  t[T, k] = $5; p[T, k] = $6; b[T, k] = $18
  if ($6 !~ /^[Nn]a[Nn]$/) plugin = 1
  if (!((T, k) in seen)) { seen[T, k] = 1; seeds[T] = seeds[T] SUBSEP k; ns[T]++ }
  if (!(T in isT)) { isT[T] = 1; Ts[++nT] = T }
  if (T + 0 > Tmax) Tmax = T + 0
}
END {
  for (i = 1; i <= nT; i++) {
    T = Ts[i]; n = split(substr(seeds[T], 2), ks, SUBSEP)
    st = sp = sb = 0
    for (j = 1; j <= n; j++) { st += t[T, ks[j]]; sp += p[T, ks[j]]; sb += b[T, ks[j]] }
    r = st / sb; ss = 0
    for (j = 1; j <= n; j++) { d = t[T, ks[j]] - r * b[T, ks[j]]; ss += d * d }
    se = (n > 1) ? sqrt(ss / (n - 1)) / (sqrt(n) * sb / n) : 0
    printf "T = %s: transformer %.4f, plug-in %s, Bayes %.4f, transformer / Bayes %.3f ± %.3f (SE over %d seeds)\n", T, st / n, plugin ? sprintf("%.4f", sp / n) : "–", sb / n, r, se, n
  }
  if (!plugin) exit
  n = split(substr(seeds[Tmax], 2), ks, SUBSEP); s = ss = 0
  for (j = 1; j <= n; j++) { d = t[Tmax, ks[j]] - p[Tmax, ks[j]]; s += d; ss += d * d }
  m = s / n; sd = sqrt((ss - n * m * m) / (n - 1))
  printf "transformer - plug-in at T = %d: %.4f ± %.4f over %d seeds, paired t = %.2f\n", Tmax, m, sd, n, m / (sd / sqrt(n))
}
