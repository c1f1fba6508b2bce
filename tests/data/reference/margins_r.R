# Reference values for tests/core/test_margins.py (non-inferiority and equivalence margins).
#
# Run:  Rscript tests/data/reference/margins_r.R PATH/TO/ratesci
# where PATH/TO/ratesci is a checkout of https://github.com/petelaud/ratesci (pure R; its R/
# folder is sourced, no install needed). Used: commit dbe2ab79905671cd174334bff6eef07e735aebc7
# (ratesci 1.1.0.9000), R 4.2.
#
# 1. Tango's (1998) score test at a shifted null, from ratesci's scorepairci() with
#    skew = FALSE, bcf = FALSE, cc = 0 (Tango's original score statistic), contrast = "RD".
#    ratesci's x = c(a, b, c, d) has RD = (b - c) / N, b = "event on condition 1 only"; the
#    candidate is condition 1, so b = improvements, c = regressions. pval_right is the p of the
#    null "RD <= theta0", pval_left that of "RD >= theta0".
# 2. The paired t tests of the TOST with R's own t.test().

args <- commandArgs(trailingOnly = TRUE)
root <- if (length(args) >= 1) args[1] else "ratesci"
for (f in list.files(file.path(root, "R"), pattern = "[.]R$", full.names = TRUE)) source(f)

tables <- list(
  tango_example = c(43, 0, 1, 0),  # Tango 1998 / ratesci test3.R: 90% CI -0.096 to 0.037
  cavo = c(59, 6, 16, 80),         # Fagerland et al. 2014 (Cavo et al. 2012)
  eval_1000 = c(700, 30, 40, 230), # 1,000 items: 40 regressions, 30 improvements
  no_change = c(500, 0, 0, 500)    # no discordant item at all
)
margins <- c(0.01, 0.02, 0.05, 0.10)
cat("# table, margin, Z at -m, p(null RD <= -m), Z at +m, p(null RD >= +m), Tango 90% CI\n")
for (name in names(tables)) {
  x <- tables[[name]]
  for (m in margins) {
    lo <- scorepairci(x, contrast = "RD", skew = FALSE, bcf = FALSE, cc = 0,
                      theta0 = -m, level = 0.90)
    hi <- scorepairci(x, contrast = "RD", skew = FALSE, bcf = FALSE, cc = 0,
                      theta0 = m, level = 0.90)
    cat(sprintf("%s %.2f %.12g %.12g %.12g %.12g %.8f %.8f\n", name, m,
                lo$pval[, "scorenull"], lo$pval[, "pval_right"],
                hi$pval[, "scorenull"], hi$pval[, "pval_left"],
                lo$estimates[, "lower"], lo$estimates[, "upper"]))
  }
  nc <- moverpairci(x, contrast = "RD", level = 0.90, type = "wilson", corc = TRUE)
  cat(sprintf("%s newcombe90 %.10f %.10f\n", name, nc$estimates[, "lower"], nc$estimates[, "upper"]))
}

d <- c(0.05, 0.4, -0.35, 0.0, 0.35, -0.4, -0.05, 0.65, -0.1, 0.25, -0.5, -0.15, 0.2, -0.55,
       0.15, 0.5, -0.25, 0.1, 0.45, -0.3, 0.05, -0.35, 0.0, 0.35, -0.4, -0.05, 0.3, -0.45, 0.25,
       0.6, -0.15, 0.2, -0.55, -0.2, 0.15, -0.25, 0.1, 0.45, -0.3, 0.05)
cat("# deltas, margin, t at -m, p greater, t at +m, p less, 90% t CI\n")
for (m in c(0.05, 0.10, 0.15)) {
  g <- t.test(d, mu = -m, alternative = "greater")
  l <- t.test(d, mu = m, alternative = "less")
  ci <- t.test(d, conf.level = 0.90)$conf.int
  cat(sprintf("deltas40 %.2f %.12g %.12g %.12g %.12g %.10f %.10f\n", m, g$statistic, g$p.value,
              l$statistic, l$p.value, ci[1], ci[2]))
}
