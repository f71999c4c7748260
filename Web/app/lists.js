// The Sessions screen (conversations, unread first; invitations and requests above
// them) and the Contacts screen (people, groups, rooms, the "+" menu, the directory of
// open groups).

import { h, text, avatar, $, showError, shortTime, clean } from './dom.js';
import { seg } from './api.js';

export function renderSessions(app) {
  const { state } = app;
  const rows = [...state.conversations.values()].sort((a, b) =>
    (b.unread > 0) - (a.unread > 0) || String(b.updated_at).localeCompare(String(a.updated_at)));
  $('session-list').replaceChildren(...rows.map((c) => {
    const last = c.last_message;
    const preview = !last ? '' : last.deleted_at ? '(deleted)' : `${last.type === 'system' ? '' : last.sender + ': '}${last.text}`;
    const label = `${clean(c.display_name)}${c.unread ? `, ${c.unread} unread` : ''}`;
    return h('li', {},
      h('button', { type: 'button', class: `row${state.open === c.address ? ' current' : ''}`, 'data-test': 'session-row',
                    'data-address': c.address, 'aria-label': label, 'aria-current': state.open === c.address ? 'true' : undefined,
                    onclick: () => app.openConversation(c.address) },
        avatar(c.avatar_url, c.display_name),
        h('span', { class: 'row-main' },
          h('span', { class: 'row-title' }, text(c.display_name, { 'data-test': 'session-name' }),
            h('time', { class: 'row-time' }, shortTime(last?.created_at ?? c.updated_at))),
          h('span', { class: 'row-sub', 'data-test': 'session-last' }, text(preview.slice(0, 140)))),
        h('span', { class: 'badge', 'data-test': 'unread-count', hidden: !c.unread, 'aria-hidden': 'true' }, String(c.unread ?? 0))));
  }));
  $('sessions-empty').hidden = rows.length > 0;
  renderPending(app);
}

function renderPending(app) {
  const { invites, requests } = app.state;
  const items = [];
  for (const invite of invites) {
    items.push(h('li', { class: 'pending-row', 'data-test': 'invite', 'data-group': invite.group },
      h('span', {}, 'Invited to ', text(`group:${invite.group}`), ' by ', text(invite.invited_by)),
      h('button', { type: 'button', class: 'primary', 'data-test': 'invite-accept', onclick: () => app.act(async () => {
        await app.api.post(`/v1/groups/${seg(invite.group)}/join`);
        await app.reloadPending();
        await app.reloadLists();
        app.openConversation(`group:${invite.group}`);
      }) }, 'Accept'),
      h('button', { type: 'button', 'data-test': 'invite-decline', onclick: () => app.act(async () => {
        await app.api.del(`/v1/groups/${seg(invite.group)}/invites/${seg(app.state.me.username)}`);
        await app.reloadPending();
      }) }, 'Decline')));
  }
  for (const request of requests) {
    items.push(h('li', { class: 'pending-row', 'data-test': 'request', 'data-group': request.group },
      h('span', {}, 'Asked to join ', text(`group:${request.group}`)),
      h('button', { type: 'button', 'data-test': 'request-withdraw', onclick: () => app.act(async () => {
        await app.api.del(`/v1/groups/${seg(request.group)}/requests/${seg(app.state.me.username)}`);
        await app.reloadPending();
      }) }, 'Withdraw')));
  }
  $('pending').replaceChildren(items.length ? h('ul', { class: 'rows', 'aria-label': 'Invitations and requests' }, items) : '');
}

export function renderContacts(app) {
  const { contacts, groups, rooms } = app.state;
  const row = (address, name, sub, url, extra) => h('li', {},
    h('button', { type: 'button', class: 'row', 'data-test': 'contact-row', 'data-address': address,
                  onclick: () => app.openConversation(address, { info: true }) },
      avatar(url, name),
      h('span', { class: 'row-main' }, h('span', { class: 'row-title' }, text(name)), h('span', { class: 'row-sub' }, text(sub)))),
    extra);
  $('contact-people').replaceChildren(...contacts.map((u) => row(`user:${u.username}`, u.nickname, `@${u.username}${u.signature ? ' · ' + u.signature : ''}`, u.avatar_url)));
  $('contact-groups').replaceChildren(...groups.map((g) => row(`group:${g.name}`, g.title || g.name, `group:${g.name} · ${g.member_count} members`, g.logo_url)));
  $('contact-rooms').replaceChildren(...rooms.map((r) => row(`room:${r.name}`, r.title || r.name, `room:${r.name} · ${r.member_count} present`, r.logo_url)));
}

const PLUS_ACTIONS = {
  'add-contact': { label: 'Username to add', run: async (app, name) => {
    await app.api.put(`/v1/contacts/${seg(name)}`);
    await app.reloadLists();
  } },
  'create-group': { label: 'New group name', run: async (app, name) => {
    await app.api.post('/v1/groups', { name });
    await app.reloadLists();
    app.openConversation(`group:${name.toLowerCase()}`, { info: true });
  } },
  'join-group': { label: 'Group name to join', run: async (app, name) => {
    const answer = await app.api.post(`/v1/groups/${seg(name)}/join`);
    await app.reloadLists();
    await app.reloadPending();
    if (answer?.kind) app.openConversation(`group:${answer.name}`);
    else app.announce(`Asked to join group ${name}: an admin decides.`);
  } },
  'create-room': { label: 'New room name', run: async (app, name) => {
    const room = await app.api.post('/v1/rooms', { name });
    await app.reloadLists();
    app.openConversation(`room:${room.name}`);
  } },
  'enter-room': { label: 'Room name to enter', run: async (app, name) => {
    const room = await app.api.post(`/v1/rooms/${seg(name)}/enter`);
    await app.reloadLists();
    app.openConversation(`room:${room.name}`);
  } },
};

/** The "+" menu: a menu button whose items open the name form. */
export function setUpContacts(app) {
  const button = $('contact-add');
  const menu = $('plus-menu');
  const form = $('name-form');
  let action = null;
  const closeMenu = (focusButton) => {
    menu.hidden = true;
    button.setAttribute('aria-expanded', 'false');
    if (focusButton) button.focus();
  };
  button.addEventListener('click', () => {
    const open = menu.hidden;
    menu.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
    if (open) menu.querySelector('button').focus();
  });
  menu.addEventListener('keydown', (e) => {
    const items = [...menu.querySelectorAll('button')];
    const index = items.indexOf(document.activeElement);
    if (e.key === 'ArrowDown') { e.preventDefault(); items[(index + 1) % items.length].focus(); }
    if (e.key === 'ArrowUp') { e.preventDefault(); items[(index - 1 + items.length) % items.length].focus(); }
    if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); closeMenu(true); }
  });
  menu.addEventListener('click', (e) => {
    const item = e.target.closest('button[data-action]');
    if (!item) return;
    action = PLUS_ACTIONS[item.dataset.action];
    closeMenu(false);
    $('name-label').textContent = action.label;
    showError($('name-error'), null);
    form.hidden = false;
    $('name-input').value = '';
    $('name-input').focus();
  });
  const closeForm = () => { form.hidden = true; button.focus(); };
  $('name-cancel').addEventListener('click', closeForm);
  form.addEventListener('keydown', (e) => { if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); closeForm(); } });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const name = $('name-input').value.trim();
    if (!name) return showError($('name-error'), new Error('Type a name first.'));
    try {
      await action.run(app, name);
      form.hidden = true;
    } catch (error) {
      showError($('name-error'), error);
    }
  });
  setUpDirectory(app);
}

function setUpDirectory(app) {
  let after = null;
  let query = '';
  const load = async (more) => {
    showError($('directory-error'), null);
    const params = new URLSearchParams({ limit: '20' });
    if (query) params.set('q', query);
    if (more && after) params.set('after', after);
    try {
      const answer = await app.api.get(`/v1/directory/groups?${params}`);
      const rows = answer.groups.map((g) => h('li', { class: 'pending-row', 'data-test': 'directory-row', 'data-group': g.name },
        h('span', { class: 'row-main' },
          h('span', { class: 'row-title' }, text(g.title || g.name)),
          h('span', { class: 'row-sub' }, text(`group:${g.name} · ${g.members} members${g.description ? ' · ' + g.description : ''}`))),
        h('button', { type: 'button', 'data-test': 'directory-join', onclick: () => app.act(async () => {
          const answer = await app.api.post(`/v1/groups/${seg(g.name)}/join`);
          await app.reloadLists();
          await app.reloadPending();
          if (answer?.kind) app.openConversation(`group:${g.name}`);
          else app.announce(`Asked to join ${g.name}: an admin decides.`);
        }) }, g.join === 'open' ? 'Join' : 'Ask to join')));
      if (more) $('directory-list').append(...rows); else $('directory-list').replaceChildren(...rows);
      if (!more && rows.length === 0) $('directory-list').replaceChildren(h('li', { class: 'hint' }, 'No open groups match.'));
      after = answer.next_after ?? null;
      $('directory-more').hidden = !after;
    } catch (error) {
      showError($('directory-error'), error.status === 404 && !more
        ? new Error('This server has no directory of open groups: join one by its name with "+".') : error);
    }
  };
  $('directory-form').addEventListener('submit', (e) => { e.preventDefault(); query = $('directory-query').value.trim(); load(false); });
  $('directory-more').addEventListener('click', () => load(true));
  app.loadDirectory = () => load(false);
}
