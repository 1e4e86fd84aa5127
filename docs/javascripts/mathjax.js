// MathJax settings for the $...$ and $$...$$ formulas of the metric reference (pymdownx.arithmatex, generic mode).
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex",
  },
};
document$.subscribe(() => {
  if (window.MathJax && MathJax.typesetPromise) MathJax.typesetPromise();
});
