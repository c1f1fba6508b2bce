# Reference values for tests/core/test_categorical.py (evaltui.core.stats.categorical).
# Run: Rscript tests/data/reference/stuart_maxwell_coin.R   (R 4.2.2, coin 1.4.2)
# coin::mh_test on a square table is the Stuart-Maxwell test of marginal homogeneity; its
# asymptotic statistic is the Stuart-Maxwell chi-square.
suppressMessages(library(coin))
show <- function(name, tab) {
  r <- mh_test(as.table(tab))
  cat(name, sprintf("statistic=%.15g p=%.15g\n", statistic(r), pvalue(r)))
}
# Stuart (1955): unaided distance vision of 7477 women, right eye grade (rows) x left eye grade.
vision <- matrix(c(1520, 266, 124, 66,
                   234, 1512, 432, 78,
                   117, 362, 1772, 205,
                   36, 82, 179, 492), nrow = 4, byrow = TRUE)
dimnames(vision) <- list(right = 1:4, left = 1:4)
show("vision", vision)
# Agresti (2002), Categorical Data Analysis 2nd ed., Table 10.5: coffee brand at the first
# (rows) and second purchase: High Point, Taster's Choice, Sanka, Nescafe, Brim.
brands <- c("HighPoint", "TastersChoice", "Sanka", "Nescafe", "Brim")
coffee <- matrix(c(93, 17, 44, 7, 10,
                   9, 46, 11, 0, 9,
                   17, 11, 155, 9, 12,
                   6, 4, 9, 15, 2,
                   10, 4, 12, 2, 27), nrow = 5, byrow = TRUE)
dimnames(coffee) <- list(first = brands, second = brands)
show("coffee", coffee)
# Three systems over the same 24 items (the k-system example of the tests), every pair, then
# Holm over the three pairs.
levs <- c("correct", "error", "incorrect", "refused")
x <- factor(rep(c("correct", "correct", "incorrect", "refused", "correct", "error"), 4), levs)
y <- factor(rep(c("correct", "refused", "refused", "refused", "incorrect", "error"), 4), levs)
z <- factor(rep(c("incorrect", "correct", "incorrect", "correct", "correct", "correct"), 4), levs)
systems <- list(x = x, y = y, z = z)
pairs <- list(c("x", "y"), c("x", "z"), c("y", "z"))
p <- c()
for (pr in pairs) {
  tab <- table(systems[[pr[1]]], systems[[pr[2]]])
  # levels nobody moved into or out of are dropped first (coin cannot invert S otherwise)
  off <- rowSums(tab) + colSums(tab) - 2 * diag(tab)
  keep <- off > 0
  r <- mh_test(as.table(tab[keep, keep]))
  cat(paste(pr, collapse = "-"), sprintf("statistic=%.15g df=%d p=%.15g\n", statistic(r),
      sum(keep) - 1L, pvalue(r)))
  p <- c(p, pvalue(r))
}
cat("holm", sprintf("%.15g", p.adjust(p, "holm")), "\n")
cat(R.version.string, "coin", as.character(packageVersion("coin")), "\n")
