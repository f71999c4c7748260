// One conversation: its history paged upward 50 at a time, live messages, the outbox's
// pending ones, replies, edits and deletes. The DOM holds a window of at most MAX_ROWS
// rows of the messages in memory; scrolling past either end moves the window (and
// fetches an older page at the top), so a conversation of any length keeps a bounded DOM.

import { h, text, richText, shortTime, $, showError } from './dom.js';
import { seg } from './api.js';
import { splitMessage, characters, MAX_CHARACTERS } from './split.js';

const PAGE = 50;
export const MAX_ROWS = 150;

export class Dialogue {
  constructor(app) {
    this.app = app;
    this.list = $('messages');
    this.conv = null;
    this.replyTo = null;
    this.editing = null;
    this.newBelow = 0;
    this.loading = false;
    this.list.addEventListener('scroll', () => this.onScroll());
    $('new-below').addEventListener('click', () => this.toEnd(true));
    $('jump-unread').addEventListener('click', () => this.jumpToUnread());
    $('reply-cancel').addEventListener('click', () => this.cancelCompose());
    $('composer').addEventListener('submit', (e) => { e.preventDefault(); this.submit(); });
    const box = $('composer-text');
    box.addEventListener('keydown', (e) => this.onKey(e));
    box.addEventListener('input', () => { this.grow(); this.disarmSplit(); });
    this.list.addEventListener('click', (e) => this.onAction(e));
  }

  /** Opens a conversation: its newest page, the window at the end. */
  async open(address) {
    const row = this.app.state.conversations.get(address);
    this.conv = { address, items: [], byId: new Map(), hasOlder: true, start: 0, end: 0,
                  lastRead: row?.last_read_seq ?? 0, firstUnread: (row?.unread ?? 0) > 0,
                  // Where the unread messages began when the conversation was opened: the read
                  // marker moves on as they are shown, "Jump to first unread" still finds them.
                  unreadAfter: row?.last_read_seq ?? 0 };
    this.cancelCompose();
    this.newBelow = 0;
    $('new-below').hidden = true;
    $('jump-unread').hidden = true;
    showError($('composer-error'), null);
    this.list.replaceChildren(h('li', { class: 'hint' }, 'Loading…'));
    const conv = this.conv;
    try {
      await this.fetchOlder();
    } catch (error) {
      if (conv !== this.conv) return;
      this.list.replaceChildren(h('li', { class: 'error' }, error.message));
      return;
    }
    if (conv !== this.conv) return;
    conv.start = Math.max(0, conv.items.length - MAX_ROWS);
    conv.end = conv.items.length;
    this.renderWindow();
    this.scrollToBottom();
    if (conv.firstUnread && !this.firstUnreadInView()) $('jump-unread').hidden = false;
    this.markRead();
  }

  close() {
    this.conv = null;
    this.list.replaceChildren();
  }

  // MARK: the messages in memory

  /** Fetches the page before the oldest message in memory; false when there is none. */
  async fetchOlder() {
    const conv = this.conv;
    if (!conv.hasOlder) return false;
    const before = conv.items.length ? `&before=${conv.items[0].seq}` : '';
    const page = await this.app.api.get(`/v1/conversations/${seg(conv.address)}/messages?limit=${PAGE}${before}`);
    if (conv !== this.conv) return false;
    const older = page.messages.filter((m) => !conv.byId.has(m.id)).reverse();
    for (const m of older) conv.byId.set(m.id, m);
    conv.items.unshift(...older);
    conv.start += older.length;
    conv.end += older.length;
    conv.hasOlder = page.next_before !== undefined;
    return older.length > 0;
  }

  /** A message from the feed or a send's answer: added, or its row brought up to date. */
  upsert(message) {
    const conv = this.conv;
    if (!conv) return;
    const known = conv.byId.get(message.id);
    if (known) {
      Object.assign(known, message);
      if (message.deleted_at === undefined) delete known.deleted_at;
      const row = this.list.querySelector(`li[data-id="${CSS.escape(message.id)}"]`);
      if (row) row.replaceWith(this.row(known));
      return;
    }
    conv.byId.set(message.id, message);
    const atEnd = conv.end === conv.items.length;
    let index = conv.items.length;
    while (index > 0 && conv.items[index - 1].seq > message.seq) index--;
    conv.items.splice(index, 0, message);
    if (index < conv.start) { conv.start++; conv.end++; return; }
    if (!atEnd && index >= conv.end) {
      if (message.sender !== this.app.state.me.username && message.type === 'chat') this.countNew();
      return;
    }
    const wasAtBottom = this.atBottom();
    conv.end++;
    const next = this.list.querySelectorAll('li[data-seq]')[index - conv.start];
    const rowEl = this.row(message);
    if (next) this.list.insertBefore(rowEl, next); else this.list.insertBefore(rowEl, this.pendingStart());
    this.placeNotices();
    if (wasAtBottom || message.sender === this.app.state.me.username) {
      this.trimTop();
      this.scrollToBottom();
      this.markRead();
    } else if (message.type === 'chat') {
      this.countNew();
    }
  }

  countNew() {
    this.newBelow++;
    const button = $('new-below');
    button.textContent = `${this.newBelow} new ↓`;
    button.hidden = false;
  }

  // MARK: the window

  renderWindow() {
    const conv = this.conv;
    const rows = conv.items.slice(conv.start, conv.end).map((m) => this.row(m));
    if (!conv.hasOlder && conv.start === 0) rows.unshift(h('li', { class: 'hint start' }, 'This is the start of the conversation.'));
    this.list.replaceChildren(...rows);
    this.renderPending();
    this.placeNotices();
  }

  // MARK: notices (only this user sees them)

  /** Puts the conversation's notices among the rows shown, by time: before the first
   *  message shown that is newer, or last when the window reaches the newest message.
   *  One from before the window waits for it to move up. */
  placeNotices() {
    for (const old of this.list.querySelectorAll('li.notice')) old.remove();
    const conv = this.conv;
    if (!conv) return;
    const rows = [...this.list.querySelectorAll('li[data-seq]')];
    const shown = conv.items.slice(conv.start, conv.end);
    const atStart = conv.start === 0 && !conv.hasOlder;
    for (const notice of this.app.noticesOf(conv.address)) {
      const index = shown.findIndex((m) => m.created_at > notice.created_at);
      if (index === 0 && !atStart) continue;
      if (index < 0 && conv.end !== conv.items.length) continue;
      const next = index < 0 ? this.pendingStart() : rows[index];
      if (next) this.list.insertBefore(this.noticeRow(notice), next); else this.list.append(this.noticeRow(notice));
    }
  }

  /** A notice came for the open conversation: in place, followed when at the bottom. */
  noticeArrived() {
    const wasAtBottom = this.atBottom();
    this.placeNotices();
    if (wasAtBottom) this.scrollToBottom();
  }

  /** The quote of a reply: who said what it answers. */
  quote(id, test) {
    const quoted = this.conv.byId.get(id);
    return h('div', { class: 'quote', 'data-test': test }, '↪ ',
      quoted ? [text(quoted.sender), ': ', text(quoted.deleted_at ? '(deleted)' : quoted.text.slice(0, 120))] : 'an earlier message');
  }

  noticeRow(n) {
    return h('li', { class: 'msg notice', 'data-test': 'notice', 'data-notice-id': n.id },
      h('div', { class: 'meta' },
        text(n.sender, { class: 'sender', 'data-test': 'notice-sender' }), ' ',
        h('time', { datetime: n.created_at }, shortTime(n.created_at)), ' · ',
        h('span', { class: 'only-you', 'data-test': 'notice-mark' }, 'only you can see this')),
      n.reply_to ? this.quote(n.reply_to, 'notice-quote') : null,
      h('div', { class: 'body', dir: 'auto', 'data-test': 'notice-text' }, richText(n.text)));
  }

  /** The first row of the outbox's pending messages (they stay below the stored ones). */
  pendingStart() { return this.list.querySelector('li.pending'); }

  renderPending() {
    for (const old of this.list.querySelectorAll('li.pending')) old.remove();
    if (!this.conv || this.conv.end !== this.conv.items.length) return;
    for (const item of this.app.outbox.of(this.conv.address)) {
      const status = item.state === 'failed' ? `not sent: ${item.error}`
        : item.error ? `queued (${item.error})` : 'sending…';
      this.list.append(h('li', { class: `msg own pending ${item.state}`, 'data-test': 'pending-message', 'data-client-id': item.id },
        h('div', { class: 'body', dir: 'auto' }, richText(item.text)),
        h('div', { class: 'meta' }, h('span', { 'data-test': 'pending-state' }, status),
          item.state === 'failed' ? [
            h('button', { type: 'button', 'data-act': 'retry', 'data-client-id': item.id, 'data-test': 'pending-retry' }, 'Retry'),
            h('button', { type: 'button', 'data-act': 'discard', 'data-client-id': item.id, 'data-test': 'pending-discard' }, 'Discard'),
          ] : null)));
    }
  }

  row(m) {
    const me = this.app.state.me.username;
    const own = m.sender === me;
    if (m.type === 'system') {
      return h('li', { class: 'msg system', 'data-test': 'message', 'data-id': m.id, 'data-seq': m.seq, 'data-type': 'system' },
        text(m.text), ' ', h('time', { datetime: m.created_at }, shortTime(m.created_at)));
    }
    const deleted = m.deleted_at !== undefined;
    const canDelete = !deleted && (own || this.app.info?.canModerate);
    return h('li', { class: `msg${own ? ' own' : ''}${deleted ? ' deleted' : ''}`, 'data-test': 'message',
                     'data-id': m.id, 'data-seq': m.seq, 'data-sender': m.sender, tabindex: '-1' },
      h('div', { class: 'meta' },
        text(m.sender, { class: 'sender', 'data-test': 'message-sender' }), ' ',
        h('time', { datetime: m.created_at }, shortTime(m.created_at)),
        m.edited_at && !deleted ? h('span', { class: 'edited', 'data-test': 'message-edited' }, ' (edited)') : null),
      m.reply_to ? this.quote(m.reply_to, 'message-quote') : null,
      h('div', { class: 'body', dir: 'auto', 'data-test': 'message-text' }, deleted ? h('em', {}, '(deleted)') : richText(m.text)),
      deleted ? null : h('div', { class: 'actions' },
        h('button', { type: 'button', 'data-act': 'reply', 'data-id': m.id, 'data-test': 'message-reply' }, 'Reply'),
        own ? h('button', { type: 'button', 'data-act': 'edit', 'data-id': m.id, 'data-test': 'message-edit' }, 'Edit') : null,
        canDelete ? h('button', { type: 'button', 'data-act': 'delete', 'data-id': m.id, 'data-test': 'message-delete' }, 'Delete') : null));
  }

  /** Whether the dialogue is on screen (on a phone the list may be shown instead). */
  shown() { return this.list.getClientRects().length > 0; }

  atBottom() {
    const l = this.list;
    return l.scrollHeight - l.scrollTop - l.clientHeight < 40;
  }

  scrollToBottom() { this.list.scrollTop = this.list.scrollHeight; }

  async onScroll() {
    if (!this.conv || this.loading) return;
    const l = this.list;
    this.loading = true;
    try {
      if (!$('jump-unread').hidden && this.firstUnreadInView()) $('jump-unread').hidden = true;
      if (l.scrollTop < 300) await this.moveUp();
      else if (l.scrollHeight - l.scrollTop - l.clientHeight < 300) this.moveDown();
      if (this.atBottom() && this.conv.end === this.conv.items.length) {
        this.newBelow = 0;
        $('new-below').hidden = true;
        this.markRead();
      }
    } finally {
      this.loading = false;
    }
  }

  /** Shows older messages at the top, fetching a page when memory has none. */
  async moveUp() {
    const conv = this.conv;
    if (conv.start === 0 && !(await this.fetchOlder().catch(() => false))) {
      if (!conv.hasOlder && !this.list.querySelector('li.start')) {
        this.list.prepend(h('li', { class: 'hint start' }, 'This is the start of the conversation.'));
      }
      return;
    }
    if (conv !== this.conv || conv.start === 0) return;
    const first = this.list.querySelector('li[data-seq]');
    const before = first ? first.getBoundingClientRect().top : 0;
    const from = Math.max(0, conv.start - PAGE);
    const rows = conv.items.slice(from, conv.start).map((m) => this.row(m));
    if (first) first.before(...rows); else this.list.prepend(...rows);
    conv.start = from;
    this.trimBottom();
    this.placeNotices();
    if (first) this.list.scrollTop += first.getBoundingClientRect().top - before;
  }

  /** Shows newer messages from memory at the bottom. */
  moveDown() {
    const conv = this.conv;
    if (conv.end >= conv.items.length) return;
    const to = Math.min(conv.items.length, conv.end + PAGE);
    const rows = conv.items.slice(conv.end, to).map((m) => this.row(m));
    const last = [...this.list.querySelectorAll('li[data-seq]')].pop();
    if (last) last.after(...rows); else this.list.append(...rows);
    conv.end = to;
    this.trimTop();
    if (conv.end === conv.items.length) this.renderPending();
    this.placeNotices();
  }

  trimTop() {
    const conv = this.conv;
    let extra = conv.end - conv.start - MAX_ROWS;
    if (extra <= 0) return;
    const rows = this.list.querySelectorAll('li[data-seq]');
    const anchor = rows[extra];
    const before = anchor ? anchor.getBoundingClientRect().top : 0;
    this.list.querySelector('li.start')?.remove();
    for (let i = 0; i < extra; i++) rows[i].remove();
    conv.start += extra;
    this.placeNotices();
    if (anchor) this.list.scrollTop += anchor.getBoundingClientRect().top - before;
  }

  trimBottom() {
    const conv = this.conv;
    const extra = conv.end - conv.start - MAX_ROWS;
    if (extra <= 0) return;
    for (const old of this.list.querySelectorAll('li.pending')) old.remove();
    const rows = [...this.list.querySelectorAll('li[data-seq]')];
    for (const row of rows.slice(rows.length - extra)) row.remove();
    conv.end -= extra;
  }

  /** The window at the newest messages. */
  toEnd(focus) {
    const conv = this.conv;
    conv.end = conv.items.length;
    conv.start = Math.max(0, conv.end - MAX_ROWS);
    this.renderWindow();
    this.scrollToBottom();
    this.newBelow = 0;
    $('new-below').hidden = true;
    this.markRead();
    if (focus) $('composer-text').focus();
  }

  firstUnreadIndex() {
    const me = this.app.state.me.username;
    return this.conv.items.findIndex((m) => m.seq > this.conv.unreadAfter && m.type === 'chat' && m.sender !== me);
  }

  /** Whether the first unread message is on screen (or there is none). */
  firstUnreadInView() {
    const index = this.firstUnreadIndex();
    if (index < 0) return true;
    if (index < this.conv.start) return false;
    const row = this.list.querySelectorAll('li[data-seq]')[index - this.conv.start];
    return !row || row.offsetTop >= this.list.scrollTop;
  }

  /** Loads pages until the first unread message is in memory, and shows it. */
  async jumpToUnread() {
    const conv = this.conv;
    $('jump-unread').hidden = true;
    while (conv === this.conv && conv.hasOlder && (conv.items.length === 0 || conv.items[0].seq > conv.unreadAfter + 1)) {
      if (!(await this.fetchOlder())) break;
    }
    if (conv !== this.conv) return;
    const index = Math.max(0, this.firstUnreadIndex());
    conv.start = Math.max(0, index - 5);
    conv.end = Math.min(conv.items.length, conv.start + MAX_ROWS);
    this.renderWindow();
    const row = this.list.querySelector(`li[data-id="${CSS.escape(conv.items[index]?.id ?? '')}"]`);
    if (row) { row.scrollIntoView({ block: 'start' }); row.focus(); }
  }

  /** Moves the read marker to the newest message shown, when the reader can see it. */
  markRead() {
    const conv = this.conv;
    if (!conv || !conv.items.length || document.visibilityState !== 'visible' || !this.shown()) return;
    if (conv.end !== conv.items.length || !this.atBottom()) return;
    const newest = conv.items[conv.items.length - 1].seq;
    if (newest <= conv.lastRead) return;
    conv.lastRead = newest;
    this.app.markRead(conv.address, newest);
  }

  // MARK: composing

  grow() {
    const box = $('composer-text');
    box.style.height = 'auto';
    box.style.height = Math.min(box.scrollHeight, 160) + 'px';
    box.style.overflowY = box.scrollHeight > 160 ? 'auto' : 'hidden';
  }

  onKey(e) {
    const box = $('composer-text');
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
      e.preventDefault();
      this.submit();
    } else if (e.key === 'ArrowUp' && box.value === '' && !this.editing) {
      const me = this.app.state.me.username;
      const last = [...(this.conv?.items ?? [])].reverse().find((m) => m.sender === me && m.type === 'chat' && !m.deleted_at);
      if (last) { e.preventDefault(); this.startEdit(last); }
    } else if (e.key === 'Escape' && (this.editing || this.replyTo)) {
      e.preventDefault();
      e.stopPropagation();
      this.cancelCompose();
    }
  }

  startEdit(message) {
    this.replyTo = null;
    this.editing = message;
    $('reply-text').textContent = 'Editing your message (Esc cancels)';
    $('reply-bar').hidden = false;
    const box = $('composer-text');
    box.value = message.text;
    box.focus();
    this.grow();
  }

  startReply(message) {
    this.editing = null;
    this.replyTo = message;
    $('reply-text').replaceChildren('Replying to ', text(message.sender), ': ', text(message.text.slice(0, 80)));
    $('reply-bar').hidden = false;
    $('composer-text').focus();
  }

  cancelCompose() {
    if (this.editing) $('composer-text').value = '';
    this.editing = null;
    this.replyTo = null;
    $('reply-bar').hidden = true;
  }

  async submit() {
    const box = $('composer-text');
    const value = box.value;
    if (!this.conv || value.trim() === '') return;
    showError($('composer-error'), null);
    if (this.editing) {
      const message = this.editing;
      try {
        const changed = await this.app.api.patch(`/v1/conversations/${seg(this.conv.address)}/messages/${seg(message.id)}`, { text: value });
        this.upsert(changed);
        box.value = '';
        this.cancelCompose();
      } catch (error) {
        showError($('composer-error'), error);
      }
      this.grow();
      return;
    }
    // Longer than one message: said first, sent as several on a second Send, never cut off.
    const parts = splitMessage(value);
    if (parts.length > 1 && this.splitArmed !== value) {
      this.splitArmed = value;
      $('composer-error').textContent = `${characters(value).length.toLocaleString()} characters: a message holds ${MAX_CHARACTERS.toLocaleString()}. Send again to send it as ${parts.length} messages, or edit it.`;
      return;
    }
    this.disarmSplit();
    parts.forEach((part, index) => this.app.outbox.add(this.conv.address, part, index === 0 ? this.replyTo?.id : undefined));
    box.value = '';
    this.cancelCompose();
    this.grow();
    this.toEnd(false);
  }

  disarmSplit() {
    if (this.splitArmed === undefined) return;
    this.splitArmed = undefined;
    showError($('composer-error'), null);
  }

  async onAction(e) {
    const button = e.target.closest('button[data-act]');
    if (!button || !this.conv) return;
    const act = button.dataset.act;
    if (act === 'retry') return this.app.outbox.retry(button.dataset.clientId);
    if (act === 'discard') return this.app.outbox.discard(button.dataset.clientId);
    const message = this.conv.byId.get(button.dataset.id);
    if (!message) return;
    if (act === 'reply') this.startReply(message);
    else if (act === 'edit') this.startEdit(message);
    else if (act === 'delete') {
      // A second press confirms: no modal dialog in the way of the keyboard.
      if (button.dataset.armed !== 'yes') {
        button.dataset.armed = 'yes';
        button.textContent = 'Delete for everyone?';
        return;
      }
      try {
        this.upsert(await this.app.api.del(`/v1/conversations/${seg(this.conv.address)}/messages/${seg(message.id)}`));
      } catch (error) {
        showError($('composer-error'), error);
      }
    }
  }
}
