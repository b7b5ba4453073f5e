// A chat stream that answers "reset" (the reader fell too far behind, or
// left what the chat belongs to) reloads the page, which then shows what
// holds now.
document.addEventListener('reset', (e) => {
  if (e.target instanceof Element && e.target.hasAttribute('hx-sse:connect')) {
    window.location.reload();
  }
});
