#!/bin/bash
# Rewrites the two-core table of examples/transformerbench/README.md from twocore.txt:
# per build and shape, the best and the median of the rounds' tokens/s at
# one and at two threads.
f=${1:-$(dirname "$0")/twocore.txt}
awk -F'|' '
/^## round/ { b = $0; sub(/.*build /, "", b); next }
/^\| [0-9]/ {
  s = $2; gsub(/^ +| +$/, "", s)
  k = b SUBSEP s; n[k]++; one[k, n[k]] = $10 + 0; two[k, n[k]] = $12 + 0
  if (!(s in seen)) { seen[s] = 1; order[++ns] = s }
  if (!(b in bs)) { bs[b] = 1; border[++nb] = b }
}
function stat(arr, k, m,   i, j, t, v, best) {
  for (i = 1; i <= m; i++) v[i] = arr[k, i]
  for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
  best = v[m]
  return sprintf("%.1fk (median %.1fk)", best / 1000, (m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2) / 1000)
}
END {
  printf "| B × T |"; for (j = 1; j <= nb; j++) printf " %s, 1 thread | %s, 2 threads |", border[j], border[j]; print ""
  printf "|---|"; for (j = 1; j <= nb; j++) printf "---|---|"; print ""
  for (i = 1; i <= ns; i++) {
    printf "| %s |", order[i]
    for (j = 1; j <= nb; j++) { k = border[j] SUBSEP order[i]; printf " %s | %s |", stat(one, k, n[k]), stat(two, k, n[k]) }
    print ""
  }
}' "$f"
