// cogsim play: a key presses the quick-reply button that names it (A-D for options, the arrow keys for
// the maze's moves); Ctrl+Enter (or Cmd+Enter) in the text box sends it. Keys typed into the text box
// stay there. The page works without this script: buttons and the form post by themselves. The page's
// root element gets data-keys="on" once the keys work (a page is shown before its script has run).
"use strict";
var sent = false; // one answer per page: a second press before the next page comes does nothing
document.addEventListener("submit", function () {
  sent = true;
});
document.addEventListener("keydown", function (event) {
  if (sent) {
    event.preventDefault();
    return;
  }
  var target = event.target;
  var typing = target && (target.tagName === "TEXTAREA" || target.tagName === "INPUT");
  if (typing) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && target.form) {
      event.preventDefault();
      target.form.requestSubmit();
    }
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey) {
    return;
  }
  var key = event.key.length === 1 ? event.key.toUpperCase() : event.key;
  var buttons = document.querySelectorAll("button[data-key]");
  for (var i = 0; i < buttons.length; i++) {
    if (buttons[i].getAttribute("data-key") === key) {
      event.preventDefault();
      buttons[i].click();
      return;
    }
  }
});
document.documentElement.setAttribute("data-keys", "on");
