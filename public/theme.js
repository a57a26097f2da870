// The theme before the first paint, so a dark-mode user never sees a white flash.
// A file, not an inline script, so the Content-Security-Policy needs no inline script.
try {
  var t = localStorage.getItem("ktl.theme");
  if (t !== "light" && t !== "dark")
    t = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  document.documentElement.dataset.theme = t;
} catch {
  /* no storage: the system theme stays */
}
