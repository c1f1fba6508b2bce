# Reference values for tests/core/test_omnibus.py (Friedman), printed to full precision.
# Run: Rscript tests/data/reference/friedman_r.R
# Produced with R 4.2.2 Patched (2022-11-10 r83330), stats::friedman.test.

show <- function(name, res) {
  cat(sprintf("%s: statistic = %.17g, df = %d, p = %.17g\n",
              name, unname(res$statistic), as.integer(res$parameter), res$p.value))
}

# 1. The example of ?friedman.test: Hollander & Wolfe (1973), p. 140ff., rounding first base,
#    22 players x 3 methods ("Round Out", "Narrow Angle", "Wide Angle"), typed from the help page.
RoundingTimes <-
matrix(c(5.40, 5.50, 5.55,
         5.85, 5.70, 5.75,
         5.20, 5.60, 5.50,
         5.55, 5.50, 5.40,
         5.90, 5.85, 5.70,
         5.45, 5.55, 5.60,
         5.40, 5.40, 5.35,
         5.45, 5.50, 5.35,
         5.25, 5.15, 5.00,
         5.85, 5.80, 5.70,
         5.25, 5.20, 5.10,
         5.65, 5.55, 5.45,
         5.60, 5.35, 5.45,
         5.05, 5.00, 4.95,
         5.50, 5.50, 5.40,
         5.45, 5.55, 5.50,
         5.55, 5.55, 5.35,
         5.45, 5.50, 5.55,
         5.50, 5.45, 5.25,
         5.65, 5.60, 5.40,
         5.70, 5.65, 5.55,
         6.30, 6.30, 6.25),
       nrow = 22, byrow = TRUE,
       dimnames = list(1 : 22, c("Round Out", "Narrow Angle", "Wide Angle")))
show("RoundingTimes", friedman.test(RoundingTimes))
print(friedman.test(RoundingTimes))

# 2. The help page's second example: warpbreaks means, blocks = tension (3), groups = wool (2),
#    so k = 2 (which scipy.stats.friedmanchisquare refuses).
wb <- aggregate(warpbreaks$breaks,
                by = list(w = warpbreaks$wool, t = warpbreaks$tension),
                FUN = mean)
wbm <- matrix(wb$x, nrow = 3, byrow = TRUE, dimnames = list(levels(wb$t), levels(wb$w)))
for (i in 1:3) cat(sprintf("wb %s: %.17g %.17g\n", rownames(wbm)[i], wbm[i, 1], wbm[i, 2]))
show("warpbreaks", friedman.test(wb$x, wb$w, wb$t))
show("warpbreaks matrix", friedman.test(wbm))

# 3. A matrix with ties of every kind (pairs, a triple, fully tied rows), k = 4, n = 10,
#    typed here and in the test.
Ties <- matrix(c(1, 2, 2, 3,
                 4, 4, 4, 1,
                 2, 2, 2, 2,
                 3, 1, 2, 5,
                 1, 1, 2, 2,
                 5, 5, 5, 5,
                 2, 3, 1, 1,
                 0, 4, 4, 4,
                 3, 3, 1, 2,
                 1, 2, 3, 4),
               nrow = 10, byrow = TRUE)
show("Ties", friedman.test(Ties))
