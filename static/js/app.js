// Small things every page gets; each page works without them.

// A chat stream that answers "reset" (the reader fell too far behind, or
// left what the chat belongs to) reloads the page, which then shows what
// holds now.
document.addEventListener('reset', (e) => {
  if (e.target instanceof Element && e.target.hasAttribute('hx-sse:connect')) {
    window.location.reload();
  }
});

// A chat message changed while the page is open (a reaction, an edit)
// comes down the stream and htmx morphs the message into it
// (views/chat MessageItem): the elements stay, and a menu the reader has
// open in it (the reaction picker with its search, "More", a delete
// question) is left as it is, open, with what was typed and the focus,
// while the counts and the text around it change, as Zulip and Slack
// keep theirs. A blocked person's message opened is no menu: it follows.
htmx.config.morphSkip = [htmx.config.morphSkip, '.chat-message details[open]:not(.chat-collapsed)'].filter(Boolean).join(', ');

// A shared list's live refresh (views/groups listLive) names the items
// whose rename form is open (?editing=ID), and the page keeps those rows
// as they are. A refresh asked for before a form opened does not name
// it, and its answer would take the form away with what was typed in
// it: that answer is dropped, and the list asked for again, now naming
// every open form.
document.addEventListener('htmx:before:swap', (e) => {
  const form = e.target;
  if (!(form instanceof HTMLFormElement) || form.id !== 'list-refresh') return;
  const asked = new URL(e.detail.ctx.request.action, document.baseURI).searchParams.getAll('editing');
  const open = Array.from(form.elements).filter((i) => i.name === 'editing').map((i) => i.value);
  if (open.every((id) => asked.includes(id))) return;
  e.preventDefault();
  document.body.dispatchEvent(new Event('listchange'));
});

// A chat's quote (a reply's, a pinned message's) opens the chat at its
// message; when the page shows that message, it is scrolled to and
// marked a moment instead, as Telegram does. "Reply" in a message's menu closes the menu
// as the form comes.
document.addEventListener('click', (e) => {
  if (!(e.target instanceof Element)) return;
  const reply = e.target.closest('.chat-reply');
  if (reply) {
    reply.closest('details')?.removeAttribute('open');
    return;
  }
  const q = e.target.closest('.chat-quote[data-quote-of]');
  const m = q && document.getElementById('m-' + q.dataset.quoteOf);
  if (!m) return;
  e.preventDefault();
  m.scrollIntoView({ block: 'center', behavior: 'smooth' });
  m.classList.remove('chat-message-found');
  void m.offsetWidth; // restart the mark's fading
  m.classList.add('chat-message-found');
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

// A file input says "Choose File" and "No file chosen" in the browser's
// language, not the page's: a box in the page's words (the body's
// data-file-choose and data-file-none) stands in for them, the input
// itself laid over it, transparent, so a click or the keyboard still
// reach it, and its label still names it. Inputs that htmx swaps in
// later get the same. Without JavaScript the browser's words stay.
document.addEventListener('DOMContentLoaded', () => {
  const choose = document.body.dataset.fileChoose;
  const none = document.body.dataset.fileNone;
  if (!choose || !none) return;
  const dress = (input) => {
    // Only a form field's; the chat's picture button is its own.
    if (input.closest('.file-pick') || !input.closest('.field') || input.classList.contains('visually-hidden')) return;
    const box = document.createElement('span');
    box.className = 'file-pick';
    const button = document.createElement('span');
    button.className = 'file-pick-button';
    button.textContent = choose;
    const name = document.createElement('span');
    name.className = 'file-pick-name';
    name.textContent = none;
    for (const el of [button, name]) el.setAttribute('aria-hidden', 'true');
    input.before(box);
    box.append(input, button, name);
    input.addEventListener('change', () => {
      name.textContent = input.files.length ? Array.from(input.files, (f) => f.name).join(', ') : none;
    });
  };
  const dressAll = (root) => {
    if (root instanceof HTMLInputElement && root.type === 'file') dress(root);
    else if (root.querySelectorAll) root.querySelectorAll('input[type="file"]').forEach(dress);
  };
  dressAll(document);
  new MutationObserver((changes) => {
    for (const change of changes) change.addedNodes.forEach(dressAll);
  }).observe(document.body, { childList: true, subtree: true });
});

// A store item's pictures: a small one, chosen, takes the place of the
// large picture above them, instead of opening its file (which is what
// the link does without JavaScript).
document.addEventListener('click', (e) => {
  const link = e.target instanceof Element && e.target.closest('a[data-show-picture]');
  const main = document.querySelector('[data-testid="item-image"]');
  if (!link || !main || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  main.src = link.getAttribute('href');
  main.alt = link.querySelector('img')?.alt || main.alt;
  for (const other of link.closest('ul').querySelectorAll('a[data-show-picture]')) other.removeAttribute('aria-current');
  link.setAttribute('aria-current', 'true');
});

// Escape closes the menu (an open <details> that is not a page's card:
// "More", a reaction picker, a confirmation) the focus is in, and gives
// the focus back to its button, as menus do. In a box with words in it,
// Escape first empties the box, as the browser does for a search box.
document.addEventListener('keydown', (e) => {
  if (e.key !== 'Escape' || e.defaultPrevented || !(e.target instanceof Element)) return;
  if (e.target.matches('input, textarea') && e.target.value !== '') return;
  const menu = e.target.closest('details[open]:not(.card)');
  if (!menu) return;
  menu.open = false;
  menu.querySelector(':scope > summary')?.focus();
  e.preventDefault();
});

// The tab's title starts with the unread count, "(3) …", as the page
// was served; when the bell changes (a notice marked read, a new one
// live) the title follows it.
//
// The count each page shows is also kept in the browser's storage: a
// page showing another count (one marked read, all marked read, opened)
// changes it there, and the storage event has the browser's other tabs
// fetch their bells ("inboxchange"), which marking read does not tell the
// inbox's stream (it stays one write).
const inboxCountKey = 'harmony-inbox-count';
const bellCount = () => {
  const bell = document.getElementById('inbox-bell');
  if (!bell) return;
  const n = bell.dataset.count;
  try {
    localStorage.setItem(inboxCountKey, n);
  } catch {
    // Storage refused (private mode): the other tabs follow their next page.
  }
  const base = document.title.replace(/^\(\d+\+?\) /, '');
  document.title = n && n !== '0' ? `(${bell.querySelector('.inbox-count')?.textContent || n}) ${base}` : base;
};
document.addEventListener('htmx:after:settle', bellCount);
document.addEventListener('DOMContentLoaded', bellCount);
window.addEventListener('storage', (e) => {
  if (e.key === inboxCountKey && document.getElementById('inbox-follow')) {
    document.body.dispatchEvent(new CustomEvent('inboxchange'));
  }
});

// The header's bell follows the inbox live (internal/app/inbox/live.go):
// one tab of the browser holds the inbox's stream, elected by a Web Lock
// (when it closes, another tab takes it over), and tells the others of
// each change over a BroadcastChannel; every tab then fires
// "inboxchange" on its body, on which its bell (and the inbox page's
// list) fetch themselves. A browser without Web Locks opens a stream in
// each tab. A stream that cannot go on (signed out) is left closed.
document.addEventListener('DOMContentLoaded', () => {
  const form = document.getElementById('inbox-follow');
  if (!form || !window.EventSource) return;
  const tell = () => document.body.dispatchEvent(new CustomEvent('inboxchange'));
  const channel = window.BroadcastChannel ? new BroadcastChannel('harmony-inbox') : null;
  if (channel) channel.onmessage = tell;
  const follow = () => new Promise((ended) => {
    const source = new EventSource(form.dataset.inboxStream);
    const changed = () => {
      channel?.postMessage('change');
      tell();
    };
    source.addEventListener('inboxchange', changed);
    // Back after a lost connection, what changed meanwhile is fetched.
    let opened = false;
    source.addEventListener('open', () => {
      if (opened) changed();
      opened = true;
    });
    const end = () => { source.close(); ended(); };
    source.addEventListener('reset', end);
    source.addEventListener('error', () => { if (source.readyState === EventSource.CLOSED) end(); });
  });
  if (navigator.locks && channel) {
    navigator.locks.request('harmony-inbox-stream', follow);
  } else {
    follow();
  }
});

// Drafts, as Discourse and Zulip keep unsent replies: a box marked
// data-draft (a new reply, comment or chat message; views/components
// TextArea's Draft) keeps what is typed in this browser until its form
// is sent, so a reload, a closed tab or a trip to another page brings it
// back into the empty box. A draft is keyed by the address the form
// posts to and the box's name (one per topic, chat or comment), is
// dropped after a week, and signing out forgets every draft. Nothing of
// it reaches the server.
const draftPrefix = 'harmony-draft:';
const draftMaxAge = 7 * 24 * 3600 * 1000;
const draftKey = (box) => draftPrefix + new URL(box.form.getAttribute('action') || '', location.href).pathname + '|' + box.name;
function restoreDrafts() {
  for (const box of document.querySelectorAll('textarea[data-draft]')) {
    if (!box.form || box.value !== '' || box.dataset.draftRestored) continue;
    box.dataset.draftRestored = '1';
    try {
      const saved = JSON.parse(localStorage.getItem(draftKey(box)) || 'null');
      if (!saved || typeof saved.v !== 'string') continue;
      if (Date.now() - saved.t > draftMaxAge) {
        localStorage.removeItem(draftKey(box));
        continue;
      }
      box.value = saved.v;
    } catch { /* storage refused or a bad entry: nothing to bring back */ }
  }
}
document.addEventListener('DOMContentLoaded', restoreDrafts);
document.addEventListener('htmx:after:settle', restoreDrafts);
document.addEventListener('input', (e) => {
  const box = e.target;
  if (!(box instanceof HTMLTextAreaElement) || !box.hasAttribute('data-draft') || !box.form) return;
  try {
    if (box.value.trim() === '') localStorage.removeItem(draftKey(box));
    else localStorage.setItem(draftKey(box), JSON.stringify({ v: box.value, t: Date.now() }));
  } catch { /* storage full or refused: the box still holds the text */ }
});
document.addEventListener('submit', (e) => {
  const form = e.target;
  if (!(form instanceof HTMLFormElement)) return;
  try {
    if (new URL(form.getAttribute('action') || '', location.href).pathname === '/signout') {
      for (const key of Object.keys(localStorage)) if (key.startsWith(draftPrefix)) localStorage.removeItem(key);
      return;
    }
    // A preview (views/components Preview) shows the text; it sends nothing.
    if (e.submitter?.getAttribute('name') === 'preview') return;
    for (const box of form.querySelectorAll('textarea[data-draft]')) localStorage.removeItem(draftKey(box));
  } catch { /* storage refused */ }
}, true);
