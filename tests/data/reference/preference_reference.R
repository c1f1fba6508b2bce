# Reference values for tests/core/test_preference_reference.py (evaltui.core.stats.preference).
# Run: Rscript tests/data/reference/preference_reference.R
# Produced with R 4.2.2 Patched (2022-11-10 r83330) and BradleyTerry2 1.1.2 (Debian r-cran-*).
# The tests hard-code what this prints; they do not need R.
suppressPackageStartupMessages(library(BradleyTerry2))
options(digits = 15)
cat(R.version.string, "| BradleyTerry2", as.character(packageVersion("BradleyTerry2")), "\n")

# 1. Bradley-Terry on the journal citations data: Stigler (1994), as printed in Agresti (2002,
#    Categorical Data Analysis, 2nd ed., p. 448, section 10.6) and used in the BradleyTerry2
#    vignette (Turner and Firth, section "Example: Analysis of journal citations").
#    citations[i, j] = times journal i (cited) was cited by journal j: a "win" for i.
data(citations)
print(citations)
citations.sf <- countsToBinomial(citations)
names(citations.sf)[1:2] <- c("journal1", "journal2")
print(citations.sf)
citeModel <- BTm(cbind(win1, win2), journal1, journal2, ~ journal,
                 id = "journal", data = citations.sf)
cat("\n## BTm, refcat Biometrika\n")
print(summary(citeModel)$coefficients[, 1:2])
print(vcov(citeModel))
cat("logLik", format(as.numeric(logLik(citeModel)), digits = 15), "\n")
cat("\n## BTm, refcat JASA\n")
print(summary(update(citeModel, refcat = "JASA"))$coefficients[, 1:2])

#    The same model as a logistic regression without intercept on the +1/-1 design.
journals <- levels(citations.sf$journal1)
design <- function(p1, p2, levels) {
  X <- matrix(0, length(p1), length(levels), dimnames = list(NULL, levels))
  for (r in seq_along(p1)) {
    X[r, as.character(p1[r])] <- 1
    X[r, as.character(p2[r])] <- -1
  }
  X[, -1, drop = FALSE]  # the first level is the reference: log-strength 0
}
X <- design(citations.sf$journal1, citations.sf$journal2, journals)
#    (a tighter convergence tolerance than glm's default 1e-8, so the standard errors are the
#    ones at the maximum and not one IRLS step before it)
tight <- glm.control(epsilon = 1e-14, maxit = 100)
fit <- glm(cbind(citations.sf$win1, citations.sf$win2) ~ 0 + X, family = binomial,
           control = tight)
cat("\n## glm on the +1/-1 design (reference Biometrika)\n")
print(summary(fit)$coefficients[, 1:2])
print(vcov(fit))

# 2. Ties counted as half a win each: four made-up systems, (a better, b better, ties) per pair.
#    glm with fractional successes (a better + ties/2 out of n) maximises the same likelihood
#    evaltui maximises; R warns "non-integer #successes", which is expected here.
ties <- data.frame(
  system_a = c("s1", "s1", "s1", "s2", "s2", "s3"),
  system_b = c("s2", "s3", "s4", "s3", "s4", "s4"),
  a_better = c(30, 50, 20, 40, 12, 10),
  b_better = c(45, 30, 20, 25, 30, 35),
  tie      = c(25, 20, 10, 15, 8, 5)
)
Xt <- design(ties$system_a, ties$system_b, c("s1", "s2", "s3", "s4"))
wa <- ties$a_better + ties$tie / 2
wb <- ties$b_better + ties$tie / 2
fit_ties <- suppressWarnings(glm(cbind(wa, wb) ~ 0 + Xt, family = binomial, control = tight))
cat("\n## ties as half wins, glm (reference s1)\n")
print(summary(fit_ties)$coefficients[, 1:2])
cat("logLik-kernel", sum(wa * log(fitted(fit_ties)) + wb * log(1 - fitted(fit_ties))), "\n")

#    Exact sign test on the decisive pairs of each pair of systems, and Holm over the six.
p_sign <- mapply(function(a, b) binom.test(b, a + b, 0.5)$p.value, ties$a_better, ties$b_better)
cat("\n## sign test p (binom.test(b, a + b)) and p.adjust\n")
print(p_sign)
print(p.adjust(p_sign, "holm"))
print(p.adjust(p_sign, "BH"))

# 3. Two systems: exact sign test and the ties-dropped Wilson interval b / (a + b)
#    (prop.test without continuity correction is the Wilson score interval).
cat("\n## two systems: a, b, binom.test p, Wilson 95% (prop.test correct = FALSE)\n")
for (ab in list(c(30, 45), c(9, 21), c(0, 7), c(12, 12), c(3, 40), c(118, 97))) {
  a <- ab[1]; b <- ab[2]
  ci <- prop.test(b, a + b, correct = FALSE)$conf.int
  cat(a, b, format(binom.test(b, a + b)$p.value, digits = 15),
      format(ci[1], digits = 15), format(ci[2], digits = 15), "\n")
}
