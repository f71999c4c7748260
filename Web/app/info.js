// A conversation's info: a person's profile, a room's members, or a group's info,
// settings and members with the moderation menu its reader's role allows (an admin acts
// on members, the owner on admins too; nobody on their equals).

import { h, text, avatar, $, showError } from './dom.js';
import { seg } from './api.js';

const RANK = { member: 1, admin: 2, owner: 3 };

/** Reads what the dialogue needs to know of a conversation: roles, mute, slow mode. */
export async function loadInfo(app, address) {
  const [kind, name] = [address.slice(0, address.indexOf(':')), address.slice(address.indexOf(':') + 1)];
  const me = app.state.me.username;
  const info = { address, kind, name, canModerate: false, role: null, banner: '' };
  if (kind === 'group') {
    info.group = await app.api.get(`/v1/groups/${seg(name)}`);
    try {
      info.members = (await app.api.get(`/v1/groups/${seg(name)}/members`)).members;
    } catch { info.members = []; }
    const mine = info.members.find((m) => m.user.username === me);
    info.role = mine?.role ?? null;
    info.canModerate = (RANK[info.role] ?? 0) >= RANK.admin;
    const notes = [];
    if (mine?.muted) notes.push(mine.muted_until ? `You are muted until ${new Date(mine.muted_until).toLocaleString()}.` : 'You are muted in this group.');
    if (mine?.restricted) notes.push('You may post once an admin lets you (new members are restricted here).');
    if (info.group.slow_mode && !info.canModerate) notes.push(`Slow mode: one message every ${info.group.slow_mode}.`);
    if (!mine) notes.push('You are not a member of this group.');
    info.banner = notes.join(' ');
    if (info.canModerate) {
      try { info.requests = (await app.api.get(`/v1/groups/${seg(name)}/requests`)).requests; } catch { info.requests = []; }
    }
  } else if (kind === 'room') {
    info.room = await app.api.get(`/v1/rooms/${seg(name)}`);
    try { info.members = (await app.api.get(`/v1/rooms/${seg(name)}/members`)).members; } catch { info.members = []; }
    if (!info.members.some((m) => m.user.username === me)) info.banner = 'You are not in this room: enter it to read and write.';
  } else {
    try { info.user = await app.api.get(`/v1/users/${seg(name)}`); } catch { info.user = null; }
  }
  return info;
}

export function renderInfo(app, info) {
  const panel = $('info');
  const act = (fn) => () => app.act(async () => { await fn(); await app.refreshInfo(); });
  const parts = [];
  if (info.kind === 'user') {
    const u = info.user;
    parts.push(h('h3', {}, 'Profile'));
    if (!u) parts.push(h('p', {}, 'No such user.'));
    else {
      parts.push(h('div', { class: 'profile-head' }, avatar(u.avatar_url, u.nickname),
        h('div', {}, h('strong', {}, text(u.nickname)), h('div', { class: 'hint' }, text(`@${u.username}${u.is_bot ? ' · bot' : ''}`)),
          u.signature ? h('p', {}, text(u.signature)) : null)));
      const isContact = app.state.contacts.some((c) => c.username === u.username);
      parts.push(h('button', { type: 'button', 'data-test': 'info-contact', onclick: act(async () => {
        if (isContact) await app.api.del(`/v1/contacts/${seg(u.username)}`); else await app.api.put(`/v1/contacts/${seg(u.username)}`);
        await app.reloadLists();
      }) }, isContact ? 'Remove from contacts' : 'Add to contacts'));
    }
  } else {
    const c = info.group ?? info.room;
    parts.push(h('h3', {}, text(c.title || c.name)),
      h('p', { class: 'hint' }, text(`${info.kind}:${c.name}${info.group ? ` · join: ${c.join}` : ''}${c.slow_mode ? ` · slow mode ${c.slow_mode}` : ''}`)),
      c.description ? h('p', { class: 'description', 'data-test': 'info-description' }, text(c.description)) : null);
    const editable = info.kind === 'room' || info.canModerate || (info.role && c.info_editable_by === 'members');
    if (editable) parts.push(infoForm(app, info, c));
    if (info.canModerate) {
      parts.push(h('form', { class: 'inline-form', 'data-test': 'invite-form', onsubmit: (e) => {
        e.preventDefault();
        const input = e.target.querySelector('input');
        app.act(async () => { await app.api.post(`/v1/groups/${seg(info.name)}/invites`, { user: input.value.trim() }); input.value = ''; app.announce('Invitation sent.'); });
      } }, h('label', { for: 'invite-user' }, 'Invite a user'), h('input', { id: 'invite-user', autocapitalize: 'none', 'data-test': 'invite-user' }),
        h('button', { type: 'submit', 'data-test': 'invite-submit' }, 'Invite')));
      for (const r of info.requests ?? []) {
        parts.push(h('div', { class: 'pending-row', 'data-test': 'join-request', 'data-user': r.user },
          h('span', {}, text(r.user), ' asks to join'),
          h('button', { type: 'button', onclick: act(() => app.api.post(`/v1/groups/${seg(info.name)}/requests/${seg(r.user)}/approve`)) }, 'Approve'),
          h('button', { type: 'button', onclick: act(() => app.api.del(`/v1/groups/${seg(info.name)}/requests/${seg(r.user)}`)) }, 'Deny')));
      }
    }
    parts.push(h('h3', {}, info.kind === 'room' ? 'Present' : 'Members'));
    parts.push(h('ul', { class: 'rows', 'data-test': 'members' }, (info.members ?? []).map((m) => memberRow(app, info, m, act))));
    parts.push(h('button', { type: 'button', class: 'danger', 'data-test': 'info-leave', onclick: () => app.act(async () => {
      await app.api.post(`/v1/${info.kind === 'room' ? 'rooms' : 'groups'}/${seg(info.name)}/leave`);
      await app.reloadLists();
      app.conversationGone(info.address);
    }) }, info.kind === 'room' ? 'Leave room' : 'Leave group'));
  }
  parts.push(h('p', { class: 'error', role: 'alert', id: 'info-error' }));
  panel.replaceChildren(...parts);
}

function infoForm(app, info, c) {
  const plural = info.kind === 'room' ? 'rooms' : 'groups';
  return h('form', { class: 'stack', 'data-test': 'info-form', onsubmit: (e) => {
    e.preventDefault();
    const title = e.target.querySelector('[name=title]').value.trim();
    const description = e.target.querySelector('[name=description]').value;
    app.act(async () => {
      await app.api.patch(`/v1/${plural}/${seg(info.name)}`, { title, description });
      await app.refreshInfo();
    });
  } },
  h('label', { for: 'info-title' }, 'Title'), h('input', { id: 'info-title', name: 'title', value: c.title || c.name, 'data-test': 'info-title' }),
  h('label', { for: 'info-description' }, 'Description'),
  (() => { const t = h('textarea', { id: 'info-description', name: 'description', 'data-test': 'info-description-edit' }); t.value = c.description || ''; return t; })(),
  h('button', { type: 'submit', 'data-test': 'info-save' }, 'Save info'));
}

function memberRow(app, info, m, act) {
  const me = app.state.me.username;
  const u = m.user;
  const flags = [m.role !== 'member' ? m.role : '', m.muted ? 'muted' : '', m.restricted ? 'restricted' : ''].filter(Boolean).join(', ');
  const row = h('li', { class: 'member', 'data-test': 'member', 'data-user': u.username },
    avatar(u.avatar_url, u.nickname), h('span', { class: 'row-main' }, text(u.nickname), ' ', h('span', { class: 'hint' }, text(`@${u.username}`), flags ? ` · ${flags}` : '')));
  if (info.kind !== 'group' || u.username === me) return row;
  const mine = RANK[info.role] ?? 0;
  const theirs = RANK[m.role] ?? 0;
  if (mine < RANK.admin || theirs >= mine) return row;
  const actions = [];
  actions.push(m.muted || m.restricted ? ['unmute', m.restricted ? 'Let post' : 'Unmute'] : ['mute', 'Mute']);
  actions.push(['kick', 'Kick'], ['ban', 'Ban']);
  if (info.role === 'owner') actions.push(m.role === 'admin' ? ['demote', 'Demote'] : ['promote', 'Make admin']);
  const select = h('select', { 'aria-label': `Moderate ${u.username}`, 'data-test': 'moderate-action' },
    h('option', { value: '' }, 'Moderate…'), actions.map(([value, label]) => h('option', { value }, label)));
  select.addEventListener('change', () => {
    const action = select.value;
    if (!action) return;
    act(() => app.api.post(`/v1/groups/${seg(info.name)}/moderation`, { action, user: u.username }))();
  });
  row.append(select);
  return row;
}

export function showInfoError(error) {
  const el = document.getElementById('info-error');
  if (el) showError(el, error);
}
