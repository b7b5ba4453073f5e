// Small things every page gets; each page works without them.

// A chat stream that answers "reset" (the reader fell too far behind, or
// left what the chat belongs to) reloads the page, which then shows what
// holds now.
document.addEventListener('reset', (e) => {
  if (e.target instanceof Element && e.target.hasAttribute('hx-sse:connect')) {
    window.location.reload();
  }
});

// A row of tabs wider than a phone scrolls sideways: bring the current
// tab into view, so a page whose tab is at the far end does not open
// with it hidden.
document.addEventListener('DOMContentLoaded', () => {
  for (const tab of document.querySelectorAll('.tabs [aria-current="page"]')) {
    const row = tab.closest('ul');
    if (row && row.scrollWidth > row.clientWidth) {
      const r = row.getBoundingClientRect();
      const t = tab.getBoundingClientRect();
      row.scrollLeft += t.left - r.left - (r.width - t.width) / 2;
    }
  }
});

// "Use my location" (People): once the person allows it, the browser's
// location fills the form's lat and lon and the form is sent. Without
// JavaScript, or a browser without geolocation, the button stays hidden
// and the hint beside it says what it would do.
document.addEventListener('DOMContentLoaded', () => {
  if (!navigator.geolocation) return;
  for (const button of document.querySelectorAll('[data-geolocate]')) {
    const form = button.closest('form');
    const refused = form.querySelector('[data-geolocate-error]');
    button.hidden = false;
    button.addEventListener('click', () => {
      button.disabled = true;
      navigator.geolocation.getCurrentPosition((at) => {
        form.elements.lat.value = at.coords.latitude.toFixed(4);
        form.elements.lon.value = at.coords.longitude.toFixed(4);
        form.submit();
      }, () => {
        button.disabled = false;
        if (refused) refused.hidden = false;
      }, { maximumAge: 600000, timeout: 15000 });
    });
  }
});
