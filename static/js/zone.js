// A signed-in person whose profile names no time zone: send the
// browser's zone once, so times show in it from the next page on. The
// profile keeps any zone chosen by hand; without this file times show in
// UTC and the profile page offers the choice.
(function () {
  "use strict";
  var body = document.body;
  var url = body.getAttribute("data-zone-url");
  if (!url || !window.fetch || !window.Intl) return;
  var zone = "";
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (e) {
    return;
  }
  if (!zone) return;
  var headers = { "Content-Type": "application/x-www-form-urlencoded" };
  try {
    var hx = JSON.parse(body.getAttribute("hx-headers:inherited") || "{}");
    for (var k in hx) headers[k] = hx[k];
  } catch (e) {
    return;
  }
  // keepalive: a navigation away (the very next click) must not cancel it.
  fetch(url, { method: "POST", headers: headers, body: "timezone=" + encodeURIComponent(zone), credentials: "same-origin", keepalive: true });
})();
