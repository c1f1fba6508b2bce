# Reference values for tests/core/test_power_designs.py, printed to full precision.
# Run: Rscript tests/data/reference/power_designs_r.R
# Produced with R 4.2.2 Patched (2022-11-10 r83330), stats::power.t.test(type = "paired"),
# with tol = 1e-12 (the default tol, .Machine$double.eps^0.25, leaves n off by ~1e-4:
# 33.36720409 instead of 33.36720398 for delta 0.5, sd 1, power 0.8).

show <- function(label, value) cat(sprintf("%s = %.15g\n", label, value))

# 1. graded: items for a mean delta and the SD of the per-item deltas.
graded <- list(
  c(0.5, 1, 0.8, 0.05), c(0.05, 0.2, 0.8, 0.05), c(0.1, 1, 0.8, 0.05), c(1, 1, 0.8, 0.05),
  c(2, 1, 0.8, 0.05), c(3, 1, 0.8, 0.05), c(0.3, 1, 0.9, 0.01), c(0.01, 1, 0.8, 0.05)
)
for (g in graded) {
  n <- power.t.test(delta = g[1], sd = g[2], power = g[3], sig.level = g[4],
                    type = "paired", tol = 1e-12)$n
  show(sprintf("graded n(delta=%g, sd=%g, power=%g, sig.level=%g)", g[1], g[2], g[3], g[4]), n)
}

# 2. k systems: the pair at the Bonferroni level alpha / m.
for (m in c(3, 6)) {
  n <- power.t.test(delta = 0.05, sd = 0.2, power = 0.8, sig.level = 0.05 / m,
                    type = "paired", tol = 1e-12)$n
  show(sprintf("graded n(delta=0.05, sd=0.2, sig.level=0.05/%d)", m), n)
}

# 3. epochs: the per-item delta SD is sqrt(sb^2 + 2 sw^2 / K).
epochs <- list(c(0.1, 0.2, 0.3, 1), c(0.1, 0.2, 0.3, 3), c(0.1, 0.2, 0.3, 10))
for (e in epochs) {
  sd <- sqrt(e[2]^2 + 2 * e[3]^2 / e[4])
  n <- power.t.test(delta = e[1], sd = sd, power = 0.8, type = "paired", tol = 1e-12)$n
  show(sprintf("epochs n(delta=%g, sb=%g, sw=%g, K=%g)", e[1], e[2], e[3], e[4]), n)
}
show("epochs floor n(delta=0.1, sb=0.2)",
     power.t.test(delta = 0.1, sd = 0.2, power = 0.8, type = "paired", tol = 1e-12)$n)

# 4. epochs given the items: the largest delta SD n items detect, then K.
for (items in c(100, 60, 40)) {
  sd_max <- power.t.test(n = items, delta = 0.1, power = 0.8, sd = NULL, type = "paired",
                         tol = 1e-12)$sd
  k <- ceiling(2 * 0.3^2 / (sd_max^2 - 0.2^2))
  show(sprintf("epochs sd_max(n=%d, delta=0.1)", items), sd_max)
  show(sprintf("epochs K(n=%d, delta=0.1, sb=0.2, sw=0.3)", items), k)
}
