# Reference values for tests/core/test_independent.py (the independent comparison, issue 17).
# Run: Rscript tests/data/reference/independent_r.R   (R 4.2.2; base R stats only)
# Orientation: candidate first, baseline second, as evaltui reports candidate - baseline.
options(digits = 15)
cases <- list(
  c(56, 70, 48, 80),    # Newcombe (1998) Table II, example (a)
  c(7, 34, 1, 34),      # Fagerland, Lydersen and Laake (2015) worked example
  c(9, 10, 3, 10),      # Newcombe (1998) Table II, example (b)
  c(5, 56, 0, 29),      # Newcombe (1998) Table II, example (d)
  c(4321, 5000, 4200, 5000),
  c(0, 30, 3, 30),
  c(3, 10, 7, 10),      # symmetric: equal-probability tables on both tails (the 1e-7 tolerance)
  c(27, 40, 13, 40),
  c(120, 1000, 100, 1200)
)
cat("# prop.test(c(x1, x2), c(n1, n2), correct = FALSE): x1, n1, x2, n2, X-squared, p-value\n")
for (k in cases) {
  r <- suppressWarnings(prop.test(c(k[1], k[3]), c(k[2], k[4]), correct = FALSE))
  cat(sprintf("(%d, %d, %d, %d, %.15g, %.15g),\n", k[1], k[2], k[3], k[4], r$statistic, r$p.value))
}
cat("# fisher.test(matrix(c(x1, n1 - x1, x2, n2 - x2), 2, byrow = TRUE))$p.value\n")
for (k in cases) {
  m <- matrix(c(k[1], k[2] - k[1], k[3], k[4] - k[3]), nrow = 2, byrow = TRUE)
  cat(sprintf("(%d, %d, %d, %d, %.15g),\n", k[1], k[2], k[3], k[4], fisher.test(m)$p.value))
}
cat("# t.test(candidate, baseline, var.equal = FALSE): t, df, p, conf.int\n")
# Student (1908) / Cushny and Peebles (1905) sleep data, R's `sleep`: group 2 as the candidate.
welch <- function(name, cand, base) {
  r <- t.test(cand, base, var.equal = FALSE)
  cat(sprintf("%s: (%.15g, %.15g, %.15g, %.15g, %.15g),\n", name, r$statistic, r$parameter,
              r$p.value, r$conf.int[1], r$conf.int[2]))
}
welch("sleep", sleep$extra[sleep$group == 2], sleep$extra[sleep$group == 1])
cand <- c(0.81, 0.64, 0.92, 0.55, 0.73, 0.88, 0.61, 0.79, 0.95, 0.70, 0.66, 0.84)
base <- c(0.52, 0.71, 0.48, 0.66, 0.59, 0.74, 0.45, 0.63, 0.57, 0.69, 0.50, 0.62, 0.58, 0.41)
welch("unequal", cand, base)
r <- t.test(cand, base, var.equal = FALSE, conf.level = 0.9)
cat(sprintf("unequal_90: (%.15g, %.15g),\n", r$conf.int[1], r$conf.int[2]))
