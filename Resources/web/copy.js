// The preview page's copy button: the one script the Loop Library ships (the page works without it).
document.querySelectorAll("button[data-copy]").forEach(function (button) {
  var source = document.getElementById(button.getAttribute("data-copy"));
  if (!source || !navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    navigator.clipboard.writeText(source.textContent).then(function () {
      button.textContent = "Copied";
      setTimeout(function () { button.textContent = "Copy"; }, 2000);
    }, function () {
      window.getSelection().selectAllChildren(source);
    });
  });
});
