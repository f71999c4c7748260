// The web client: logs in through the /v1 API, loads the lists, follows the event feed,
// and keeps the screens (Sessions, Contacts, Profile, Dialogue) up to date. Everything
// the server says is shown as text (dom.js); the token lives in this browser's storage
// and in the Authorization header only.

import { Api, seg } from './api.js';
import { $, h, text, fillAvatar, showError, clean } from './dom.js';
import { Feed } from './feed.js';
import { Outbox } from './outbox.js';
import { Dialogue } from './dialogue.js';
import { renderSessions, renderContacts, setUpContacts } from './lists.js';
import { renderProfile, setUpProfile, loadLogins } from './profile.js';
import { loadInfo, renderInfo, showInfoError } from './info.js';

/** The notices kept per conversation. */
const NOTICES_KEPT = 50;

const store = {
  get: (key) => localStorage.getItem(key),
  set: (key, value) => localStorage.setItem(key, value),
  del: (key) => localStorage.removeItem(key),
};

class App {
  constructor() {
    this.api = new Api();
    this.api.onLoggedOut = (error) => this.loggedOut(error.message);
    this.state = this.freshState();
    this.dialogue = new Dialogue(this);
    this.info = null;
    this.feed = null;
    this.outbox = null;
    this.setUpAuth();
    setUpContacts(this);
    setUpProfile(this);
    this.setUpShell();
  }

  freshState() {
    return { me: null, conversations: new Map(), recounting: new Set(), fetching: new Map(), contacts: [], groups: [], rooms: [], invites: [], requests: [], open: null, screen: 'sessions',
             // Notices to this user (only they see them) by conversation address, oldest first.
             notices: new Map() };
  }

  // MARK: logging in

  setUpAuth() {
    const user = $('login-username');
    user.value = store.get('sb.lastUser') || '';
    const showAvatar = () => fillAvatar($('login-avatar'), store.get(`sb.avatar.${user.value.trim().toLowerCase()}`), user.value || '?');
    user.addEventListener('input', showAvatar);
    showAvatar();
    $('login-form').addEventListener('submit', (e) => { e.preventDefault(); this.login(); });
    $('register-form').addEventListener('submit', (e) => { e.preventDefault(); this.register(); });
    $('register-open').addEventListener('click', () => this.showAuth('register'));
    $('register-back').addEventListener('click', () => this.showAuth('login'));
  }

  showAuth(which, message) {
    $('app').hidden = true;
    $('auth').hidden = false;
    $('login').hidden = which !== 'login';
    $('register').hidden = which !== 'register';
    if (message !== undefined) showError($(`${which}-error`), message ? new Error(message) : null);
    document.title = 'Switchboard';
    $(which === 'login' ? (store.get('sb.lastUser') ? 'login-password' : 'login-username') : 'register-username').focus();
  }

  device() {
    let device = store.get('sb.device');
    if (!device) {
      device = 'web-' + Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => b.toString(16).padStart(2, '0')).join('');
      store.set('sb.device', device);
    }
    return device;
  }

  async login() {
    const username = $('login-username').value.trim();
    const password = $('login-password').value;
    const error = $('login-error');
    if (!username || !password) return showError(error, new Error(!username ? 'Type your username.' : 'Type your password.'));
    const button = $('login-submit');
    button.disabled = true;
    button.textContent = 'Logging in…';
    showError(error, null);
    try {
      const answer = await this.api.post('/v1/login', { username, password, device: this.device() });
      $('login-password').value = '';
      await this.enter(answer.token, answer.user);
    } catch (e) {
      showError(error, e.isNetwork ? new Error('Cannot reach the server: check the connection and try again.') : e);
    } finally {
      button.disabled = false;
      button.textContent = 'Log in';
    }
  }

  async register() {
    const username = $('register-username').value.trim();
    const password = $('register-password').value;
    const again = $('register-password2').value;
    const error = $('register-error');
    if (!username) return showError(error, new Error('Choose a username.'));
    if (!password) return showError(error, new Error('Choose a password.'));
    if (password !== again) return showError(error, new Error('The two passwords differ.'));
    try {
      const answer = await this.api.post('/v1/register', { username, password, device: this.device() });
      for (const id of ['register-password', 'register-password2']) $(id).value = '';
      await this.enter(answer.token, answer.user);
    } catch (e) {
      showError(error, e);
    }
  }

  /** Logged in: remembers the name, loads the lists, starts the feed. `refreshMe`: the
   *  profile came from this browser's cache and is read again beside the feed's cursor. */
  async enter(token, user, { refreshMe = false } = {}) {
    this.api.token = token;
    store.set('sb.token', token);
    this.state = this.freshState();
    this.setMe(user);
    store.set('sb.lastUser', user.username);
    this.outbox = new Outbox(this.api, user.username, {
      onChange: () => this.dialogue.conv && this.dialogue.renderPending(),
      onSent: (item, message) => this.received(message, { address: item.address }),
    });
    this.feed = new Feed(this.api, {
      onEvent: (event) => this.handle(event),
      onOnline: () => { this.status(null); this.outbox.flush(); this.reloadLists(); },
      onOffline: () => this.status('Connection lost: reconnecting… Messages you send wait here and go out once it is back.'),
      onResync: () => this.reloadLists(),
    });
    $('auth').hidden = true;
    $('app').hidden = false;
    this.show('sessions');
    await Promise.all([this.feed.begin(), refreshMe ? this.api.get('/v1/me').then((me) => this.setMe(me)) : null]);
    await Promise.all([this.reloadLists(), this.reloadPending()]);
    performance.mark('sb-first-screen');
    document.body.dataset.ready = 'true';
    this.feed.start();
    this.outbox.flush();
    this.dialogue.renderPending();
  }

  setMe(user) {
    this.state.me = user;
    store.set(`sb.avatar.${user.username}`, user.avatar_url || '');
    renderProfile(this);
  }

  replaceToken(token) {
    this.api.token = token;
    store.set('sb.token', token);
  }

  async logout() {
    try { await this.api.post('/v1/logout'); } catch { /* ended either way here */ }
    this.loggedOut(null);
  }

  /** The login ended (logged out, or ended elsewhere): back to the login screen. */
  loggedOut(message) {
    if (this.state.me) store.del(`sb.cache.${this.state.me.username}`);
    this.feed?.stop();
    this.api.token = null;
    store.del('sb.token');
    this.dialogue.close();
    this.state = this.freshState();
    $('session-list').replaceChildren();
    delete document.body.dataset.ready;
    this.status(null);
    this.showAuth('login', message);
  }

  // MARK: the lists

  async reloadLists() {
    const [conversations, contacts, groups, rooms] = await Promise.all([
      this.api.get('/v1/conversations'), this.api.get('/v1/contacts'), this.api.get('/v1/groups'), this.api.get('/v1/rooms'),
    ]);
    this.state.conversations = new Map(conversations.conversations.map((c) => [c.address, c]));
    this.state.contacts = contacts.users;
    this.state.groups = groups.items;
    this.state.rooms = rooms.items;
    this.saveCache();
    renderSessions(this);
    renderContacts(this);
    this.updateTitle();
  }

  async reloadPending() {
    const [invites, requests] = await Promise.all([this.api.get('/v1/me/invites'), this.api.get('/v1/me/requests')]);
    this.state.invites = invites.invites;
    this.state.requests = requests.requests;
    renderSessions(this);
  }

  /**
   * Fetches one row. Fetches overlap with live messages: the server's row wins unless the
   * row here is further along; a row whose count missed messages (see `received`) is
   * fetched again until an answer is as far along. One fetch per row at a time: a row
   * asked for while its fetch is out is fetched once more when it ends, however many
   * messages asked.
   */
  async refreshRow(address) {
    if (this.state.fetching.has(address)) { this.state.fetching.set(address, true); return; }
    this.state.fetching.set(address, false);
    let again = false;
    try {
      const row = await this.api.get(`/v1/conversations/${seg(address)}`);
      const current = this.state.conversations.get(row.address);
      if ((current?.last_message?.seq ?? 0) > (row.last_message?.seq ?? 0)) {
        again = this.state.recounting.has(row.address);
      } else {
        this.state.recounting.delete(row.address);
        this.state.conversations.set(row.address, row);
      }
    } catch (error) {
      if (error.status === 404 || error.status === 403) this.state.conversations.delete(address);
    }
    again = this.state.fetching.get(address) || again;
    this.state.fetching.delete(address);
    if (again) this.refreshRow(address);
    renderSessions(this);
    this.updateTitle();
  }

  updateTitle() {
    let total = 0;
    for (const c of this.state.conversations.values()) total += c.unread || 0;
    document.title = total ? `(${total}) Switchboard` : 'Switchboard';
    $('unread-total').textContent = String(total);
    $('unread-total').hidden = total === 0;
  }

  // MARK: screens

  setUpShell() {
    for (const screen of ['sessions', 'contacts', 'profile']) {
      $(`tab-${screen}`).addEventListener('click', () => this.show(screen));
    }
    $('dialogue-back').addEventListener('click', () => { $('app').classList.remove('in-dialogue'); $(`tab-${this.state.screen}`).focus(); });
    $('dialogue-info').addEventListener('click', () => this.toggleInfo());
    document.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') return;
      if (!$('info').hidden) { this.toggleInfo(false); $('dialogue-info').focus(); } else if ($('app').classList.contains('in-dialogue')) { $('dialogue-back').click(); }
    });
    document.addEventListener('visibilitychange', () => this.dialogue.markRead());
    window.addEventListener('focus', () => this.dialogue.markRead());
    window.addEventListener('online', () => this.feed?.retryNow());
    document.addEventListener('click', () => this.askForNotifications(), { once: false });
  }

  show(screen) {
    this.state.screen = screen;
    for (const name of ['sessions', 'contacts', 'profile']) {
      $(name).hidden = name !== screen;
      if (name === screen) $(`tab-${name}`).setAttribute('aria-current', 'page'); else $(`tab-${name}`).removeAttribute('aria-current');
    }
    $('app').classList.remove('in-dialogue');
    if (screen === 'profile') loadLogins(this);
    if (screen === 'contacts' && this.loadDirectory) this.loadDirectory();
  }

  async openConversation(address, { info = false } = {}) {
    this.state.open = address;
    $('app').classList.add('in-dialogue');
    const row = this.state.conversations.get(address);
    $('dialogue-title').replaceChildren(text(row?.display_name ?? address));
    fillAvatar($('dialogue-avatar'), row?.avatar_url, row?.display_name ?? address.split(':')[1]);
    for (const id of ['composer-text', 'send', 'dialogue-info']) $(id).disabled = false;
    $('info').hidden = true;
    $('dialogue-info').setAttribute('aria-expanded', 'false');
    $('banner').hidden = true;
    renderSessions(this);
    this.info = null;
    const loading = this.refreshInfo();
    await this.dialogue.open(address);
    await loading;
    if (info) this.toggleInfo(true);
    else if (!$('messages').contains(document.activeElement)) $('composer-text').focus();
  }

  async refreshInfo() {
    const address = this.state.open;
    if (!address) return;
    try {
      const info = await loadInfo(this, address);
      if (address !== this.state.open) return;
      this.info = info;
      if (info.kind === 'user' && info.user) $('dialogue-title').replaceChildren(text(info.user.nickname));
      if (info.group || info.room) $('dialogue-title').replaceChildren(text((info.group ?? info.room).title || info.name));
      $('banner').textContent = info.banner;
      $('banner').hidden = !info.banner;
      renderInfo(this, info);
    } catch (error) {
      $('banner').textContent = error.message;
      $('banner').hidden = false;
    }
  }

  toggleInfo(open = $('info').hidden) {
    $('info').hidden = !open;
    $('dialogue-info').setAttribute('aria-expanded', String(open));
    if (open) $('info').querySelector('input, button, select, textarea')?.focus();
  }

  conversationGone(address) {
    this.state.conversations.delete(address);
    renderSessions(this);
    if (this.state.open === address) {
      this.state.open = null;
      this.dialogue.close();
      $('dialogue-title').textContent = 'No conversation open';
      $('info').hidden = true;
      for (const id of ['composer-text', 'send', 'dialogue-info']) $(id).disabled = true;
      $('app').classList.remove('in-dialogue');
    }
  }

  markRead(address, seq) {
    const row = this.state.conversations.get(address);
    if (row) { row.unread = 0; row.last_read_seq = Math.max(row.last_read_seq ?? 0, seq); renderSessions(this); this.updateTitle(); }
    this.api.post(`/v1/conversations/${seg(address)}/read`, { seq }).catch(() => {});
  }

  /** Runs a user's action, showing its error where the user looks. */
  async act(fn) {
    try { await fn(); } catch (error) { showInfoError(error); this.announce(error.message); }
  }

  announce(message) {
    const line = h('p', {}, clean(message));
    $('announcer').append(line);
    while ($('announcer').childElementCount > 5) $('announcer').firstElementChild.remove();
  }

  status(message) {
    $('status').textContent = message || '';
    $('status').hidden = !message;
    document.body.dataset.online = message ? 'false' : 'true';
  }

  // MARK: the feed

  handle(event) {
    const address = event.conversation?.address;
    const me = this.state.me?.username;
    switch (event.type) {
      case 'kicked_out':
        this.loggedOut(`Logged in elsewhere: ${event.reason}`);
        return;
      case 'message':
        this.received(event.message, event.conversation, true);
        return;
      case 'notice':
        this.noticed(event.notice, event.conversation);
        return;
      case 'message_edited':
      case 'message_deleted':
        if (this.state.open === address) this.dialogue.upsert(event.message);
        this.updateLast(address, event.message);
        return;
      case 'read':
        if (this.state.open === address && this.dialogue.conv) this.dialogue.conv.lastRead = Math.max(this.dialogue.conv.lastRead, event.seq);
        this.refreshRow(address);
        return;
      case 'profile_updated':
        if (event.user.username === me) this.setMe({ ...this.state.me, ...event.user });
        this.reloadLists();
        return;
      case 'contact_added':
        this.reloadLists();
        return;
      case 'member_invited':
      case 'invite_revoked':
      case 'join_requested':
      case 'join_request_revoked':
        if (event.user?.username === me) this.reloadPending();
        if (event.message) this.received(event.message, event.conversation, false);
        if (this.state.open === address) this.refreshInfo();
        return;
      default:
        if (event.message && event.conversation) this.received(event.message, event.conversation, false);
        if (event.user?.username === me && ['member_left', 'member_kicked', 'member_banned'].includes(event.type)) {
          this.reloadLists();
          this.conversationGone(address);
          return;
        }
        if (event.type === 'member_joined' && event.user?.username === me) { this.reloadLists(); this.reloadPending(); }
        if (event.type === 'conversation_updated') this.refreshRow(address);
        if (this.state.open === address && event.type !== 'message') this.refreshInfo();
    }
  }

  /** A stored message: into the open dialogue, the sessions list, and maybe a notification. */
  received(message, conversation, notify) {
    const address = conversation?.address;
    if (!address) return;
    const open = this.state.open === address;
    if (open) this.dialogue.upsert(message);
    const row = this.state.conversations.get(address);
    if (!row) { this.refreshRow(address); }
    else {
      // Messages before this one came while the row was fetched and were not counted:
      // the count is the server's to give.
      if (message.seq > (row.last_message?.seq ?? 0) + 1) this.state.recounting.add(address);
      if (this.state.recounting.has(address)) this.refreshRow(address);
      // At least once delivery: a message the row counted already (a fetched row often
      // has it) is not counted again; the same one again only replaces its text.
      const newer = !row.last_message || message.seq > row.last_message.seq;
      if (newer) { row.last_message = message; row.updated_at = message.created_at; }
      else if (message.seq === row.last_message.seq) row.last_message = message;
      const fromOther = message.sender !== this.state.me.username && message.type === 'chat';
      const seen = open && document.visibilityState === 'visible' && this.dialogue.shown() && this.dialogue.atBottom();
      if (fromOther && !seen && message.seq > (row.last_read_seq ?? 0) && newer) row.unread = (row.unread || 0) + 1;
      renderSessions(this);
      this.updateTitle();
    }
    if (notify && message.sender !== this.state.me.username && message.type === 'chat') {
      const name = row?.display_name ?? address;
      if (open) this.announce(`${message.sender}: ${message.text}`);
      this.notify(name, message, address);
    }
  }

  /** A notice only this user sees: shown in its dialogue among the messages, dimmed and
   *  marked; it is no message, so no unread count, last message or notification. */
  noticed(notice, conversation) {
    const address = conversation?.address;
    if (!address || !notice) return;
    const kept = this.state.notices.get(address) ?? [];
    if (kept.some((n) => n.id === notice.id)) return;
    kept.push(notice);
    kept.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
    this.state.notices.set(address, kept.slice(-NOTICES_KEPT));
    if (this.state.open === address) { this.dialogue.noticeArrived(); return; }
    const name = this.state.conversations.get(address)?.display_name ?? address;
    this.announce(`${notice.sender} sent you a notice in ${name} (only you can see it)`);
  }

  noticesOf(address) { return this.state.notices.get(address) ?? []; }

  updateLast(address, message) {
    const row = this.state.conversations.get(address);
    if (row?.last_message?.id === message.id) { row.last_message = message; renderSessions(this); }
  }

  notify(title, message, address) {
    if (!('Notification' in window) || Notification.permission !== 'granted') return;
    if (this.state.open === address && document.hasFocus()) return;
    const note = new Notification(clean(title), { body: `${message.sender}: ${clean(message.text).slice(0, 200)}`, tag: address });
    note.onclick = () => { window.focus(); this.openConversation(address); note.close(); };
  }

  /** Asks for notifications once, at the first click after logging in. */
  askForNotifications() {
    if (!this.state.me || !('Notification' in window) || Notification.permission !== 'default' || store.get('sb.notifyAsked')) return;
    store.set('sb.notifyAsked', '1');
    Notification.requestPermission().then(() => { $('notify-enable').hidden = Notification.permission !== 'default'; });
  }

  /** The sessions list as last loaded, kept in this browser so that a returning user's
   *  first screen needs no request (the seed's local cache); removed at logout. */
  saveCache() {
    const { me, conversations } = this.state;
    if (me) store.set(`sb.cache.${me.username}`, JSON.stringify({ me, conversations: [...conversations.values()].slice(0, 200) }));
  }

  /** A remembered login, if it still works: the cached list at once, then fresh data. */
  async resume() {
    const token = store.get('sb.token');
    if (!token) return this.showAuth('login');
    this.api.token = token;
    let cached = null;
    try { cached = JSON.parse(store.get(`sb.cache.${store.get('sb.lastUser')}`) || 'null'); } catch { cached = null; }
    if (cached?.me) {
      this.state.me = cached.me;
      this.state.conversations = new Map(cached.conversations.map((c) => [c.address, c]));
      $('auth').hidden = true;
      $('app').hidden = false;
      renderSessions(this);
      this.updateTitle();
      performance.mark('sb-cached-screen');
    }
    try {
      if (cached?.me) await this.enter(token, cached.me, { refreshMe: true });
      else await this.enter(token, await this.api.get('/v1/me'));
    } catch (error) {
      if (error.status !== 401) {
        this.api.token = null;
        this.showAuth('login', error.isNetwork ? 'Cannot reach the server: reload the page to try again.' : error.message);
      }
    }
  }
}

new App().resume();
