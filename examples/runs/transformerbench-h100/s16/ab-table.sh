#!/bin/bash
# Rewrites a table of Go builds at 16 threads from a device run's ab file
# (s16b-ab.txt, s16c-ab.txt: rounds of `transformerbench -threads 16
# -rounds 1 -peer none` per build): tokens/s per build and shape, the
# rounds in order, best in bold.
f=${1:?usage: ab-table.sh FILE}
awk -F'|' '
/^## round/ { b = $0; sub(/.*build /, "", b); if (!(b in bs)) { bs[b] = 1; border[++nb] = b }; next }
/^\| [0-9]/ {
  s = $2; gsub(/^ +| +$/, "", s)
  if (!(s in seen)) { seen[s] = 1; order[++ns] = s }
  v = $3; sub(/ \(.*/, "", v); gsub(/ /, "", v)
  k = b SUBSEP s; n[k]++; val[k, n[k]] = v + 0
}
END {
  printf "| B × T |"; for (j = 1; j <= nb; j++) printf " %s |", border[j]; print ""
  printf "|---|"; for (j = 1; j <= nb; j++) printf "---|"; print ""
  for (i = 1; i <= ns; i++) {
    printf "| %s |", order[i]
    for (j = 1; j <= nb; j++) {
      k = border[j] SUBSEP order[i]; best = 0
      for (r = 1; r <= n[k]; r++) if (val[k, r] > best) best = val[k, r]
      printf " "
      for (r = 1; r <= n[k]; r++) printf "%s%.0fk", (r > 1 ? " / " : ""), val[k, r] / 1000
      printf " (best %.0fk) |", best / 1000
    }
    print ""
  }
}' "$f"
