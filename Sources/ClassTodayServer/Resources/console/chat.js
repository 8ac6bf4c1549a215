// Chat: the signed-in user's rooms with unread counts, a room's history, live messages over the WebSocket (sent
// messages show "sending…" until the server's ack, then "sent", then "read" when the other member reads them),
// typing, and after a reconnect a sync of every room shown, so nothing is missed and nothing shown twice.

import { api, session } from "./api.js";
import { el, replace, notify } from "./dom.js";
import { t, formatTime, onLanguageChange } from "./i18n.js";
import { problemSummary } from "./problems.js";
import { ChatSocket } from "./socket.js";
import { reportForm } from "./report.js";

/** The Chat section. */
export class Chat {
  constructor() {
    this.roomList = document.getElementById("rooms");
    this.roomView = document.getElementById("room");
    this.title = document.getElementById("room-title");
    this.messageList = document.getElementById("messages");
    this.typingLine = document.getElementById("typing");
    this.state = document.getElementById("chat-state");
    this.composer = document.getElementById("composer");
    this.rooms = new Map();      // roomId -> room summary from the API
    this.lastSeq = new Map();    // roomId -> highest seq shown (rooms whose history was loaded)
    this.messages = new Map();   // seq -> element, in the open room
    this.pending = new Map();    // clientId -> element, sent but not yet acknowledged
    this.otherReadSeq = 0;
    this.composer.addEventListener("submit", (event) => {
      event.preventDefault();
      this.send();
    });
    this.composer.text.addEventListener("input", () => this.sendTyping());
    onLanguageChange(() => this.relabel());
  }

  /** Connects the socket and loads the rooms (after sign-in). */
  async start() {
    this.stop();
    this.socket = new ChatSocket({
      token: session.token,
      onFrame: (frame) => this.receive(frame),
      onOpen: () => this.syncAll(),
      onState: (state, detail) => {
        this.state.dataset.state = state;
        this.state.dataset.detail = detail ?? "";
        this.showState();
      },
    });
    await this.loadRooms();
  }

  /** Disconnects and forgets everything (sign-out). */
  stop() {
    this.socket?.stop();
    this.socket = null;
    this.rooms.clear();
    this.lastSeq.clear();
    this.openRoomId = null;
    this.roomView.hidden = true;
    this.roomList.replaceChildren();
  }

  async loadRooms() {
    if (!session.user) return;
    try {
      const page = await api("/v1/chat/rooms", { query: { limit: 100 } });
      if (!session.user) return;
      const fresh = new Map(page.items.map((room) => [room.id, room]));
      // Rooms are never deleted: one missing from the answer was opened while the request was under way.
      for (const [id, room] of this.rooms) if (!fresh.has(id)) fresh.set(id, room);
      this.rooms = fresh;
      this.renderRooms();
    } catch (error) {
      notify(t("error.rooms", { detail: problemSummary(error) }), "error");
    }
  }

  counterpart(room) {
    return room.seller.id === session.user.id ? room.buyer : room.seller;
  }

  renderRooms() {
    if (this.rooms.size === 0) {
      replace(this.roomList, el("li", { className: "muted" }, t("chat.noRooms")));
      return;
    }
    replace(this.roomList, [...this.rooms.values()].map((room) => el("li", { className: room.id === this.openRoomId ? "room selected" : "room" },
      el("button", { type: "button", className: "room-open", dataset: { roomId: room.id }, onclick: () => this.openRoom(room.id) },
        room.class.imageVariants
          ? el("img", { className: "thumb", src: room.class.imageVariants.thumb, alt: "", loading: "lazy", width: 48, height: 48 })
          : el("span", { className: "thumb empty", "aria-hidden": "true" }),
        el("span", { className: "result-text" },
          el("span", { className: "result-title" }, el("strong", {}, room.class.name), " · ", this.counterpart(room).nickname),
          el("span", { className: "result-meta last-message" }, room.lastMessage?.text ?? "")),
        room.unreadCount > 0
          ? el("span", { className: "unread" }, String(room.unreadCount), el("span", { className: "visually-hidden" }, ` ${t("chat.unread")}`))
          : null))));
  }

  /** Opens (creating if needed) the room on a class with its writer, and shows it. */
  async openForClass(classId) {
    try {
      const room = await api("/v1/chat/rooms", { method: "POST", body: { classId } });
      this.rooms.set(room.id, room);
      await this.openRoom(room.id);
    } catch (error) {
      notify(t("error.chat", { detail: problemSummary(error) }), "error");
    }
  }

  /** Shows a room: its last 50 messages, then whatever arrives live; marks it read. */
  async openRoom(roomId) {
    const room = this.rooms.get(roomId);
    this.openRoomId = roomId;
    this.messages.clear();
    this.pending.clear();
    this.otherReadSeq = 0;
    this.messageList.replaceChildren();
    this.typingLine.textContent = "";
    this.renderTitle(room);
    this.roomView.hidden = false;
    this.renderRooms();
    try {
      const page = await api(`/v1/chat/rooms/${encodeURIComponent(roomId)}/messages`, { query: { limit: 50 } });
      if (this.openRoomId !== roomId) return;
      for (const message of page.items.reverse()) this.show(message);
      this.lastSeq.set(roomId, Math.max(this.lastSeq.get(roomId) ?? 0, ...page.items.map((m) => m.seq), 0));
      this.socket?.send({ type: "sync", roomId, afterSeq: this.lastSeq.get(roomId) });
      this.markRead();
    } catch (error) {
      notify(t("error.messages", { detail: problemSummary(error) }), "error");
    }
    this.composer.text.focus();
  }

  /** After a (re)connect: asks for everything after the last seq of every room already shown. */
  syncAll() {
    for (const [roomId, afterSeq] of this.lastSeq) this.socket.send({ type: "sync", roomId, afterSeq });
    this.loadRooms();
  }

  send() {
    const text = this.composer.text.value.trim();
    if (!text || !this.openRoomId) return;
    const clientId = crypto.randomUUID();
    const sent = this.socket?.send({ type: "send", roomId: this.openRoomId, clientId, text });
    if (!sent) {
      notify(t("chat.notConnected"), "error");
      return;
    }
    const item = this.messageElement({ senderId: session.user.id, text, kind: "text" }, "sending");
    item.classList.add("pending");
    this.pending.set(clientId, item);
    this.messageList.append(item);
    this.composer.text.value = "";
    item.scrollIntoView({ block: "nearest" });
  }

  sendTyping() {
    const now = Date.now();
    if (!this.openRoomId || now - (this.lastTypingSent ?? 0) < 2000) return;
    this.lastTypingSent = now;
    this.socket?.send({ type: "typing", roomId: this.openRoomId });
  }

  markRead() {
    const seq = this.lastSeq.get(this.openRoomId);
    const room = this.rooms.get(this.openRoomId);
    if (!seq || !room) return;
    if (document.visibilityState === "visible") {
      this.socket?.send({ type: "read", roomId: room.id, seq });
      room.unreadCount = 0;
      this.renderRooms();
    }
  }

  receive(frame) {
    switch (frame.type) {
      case "message": return this.receiveMessage(frame.message);
      case "ack": return this.acknowledge(frame);
      case "read":
        if (frame.roomId === this.openRoomId && frame.userId !== session.user.id) {
          this.otherReadSeq = Math.max(this.otherReadSeq, frame.seq);
          this.refreshReceipts();
        }
        return;
      case "typing":
        if (frame.roomId === this.openRoomId && frame.userId !== session.user.id && this.rooms.has(frame.roomId)) {
          this.typingLine.textContent = t("chat.typing", { name: this.counterpart(this.rooms.get(frame.roomId)).nickname });
          clearTimeout(this.typingTimer);
          this.typingTimer = setTimeout(() => { this.typingLine.textContent = ""; }, 3000);
        }
        return;
      case "removed": return this.markRemoved(frame);
      case "error": return notify(t("error.chat", { detail: frame.message }), "error");
      default: return undefined;
    }
  }

  receiveMessage(message) {
    const roomId = message.roomId;
    if (roomId !== this.openRoomId) {
      const room = this.rooms.get(roomId);
      if (!room) return this.loadRooms();
      if (message.senderId !== session.user.id && message.seq > (room.lastReadSeq ?? 0)) room.unreadCount += 1;
      room.lastMessage = message;
      return this.renderRooms();
    }
    // A message already shown (acknowledged here, or replayed by a sync) is replaced by the server's copy.
    this.show(message);
    this.lastSeq.set(roomId, Math.max(this.lastSeq.get(roomId) ?? 0, message.seq));
    this.rooms.get(roomId).lastMessage = message;
    if (message.senderId !== session.user.id) {
      this.typingLine.textContent = "";
      this.markRead();
    }
    return this.renderRooms();
  }

  acknowledge(frame) {
    const item = this.pending.get(frame.clientId);
    if (!item) return;
    this.pending.delete(frame.clientId);
    if (frame.roomId !== this.openRoomId || this.messages.has(frame.seq)) {
      item.remove();
      return;
    }
    item.classList.remove("pending");
    item.dataset.seq = frame.seq;
    this.messages.set(frame.seq, item);
    this.insertInOrder(item, frame.seq);
    this.refreshReceipts();
  }

  /** Adds a message to the open room, in seq order; the server's copy of a message sent here replaces its placeholder. */
  show(message) {
    const pending = message.clientId ? this.pending.get(message.clientId) : null;
    if (pending) {
      this.pending.delete(message.clientId);
      pending.remove();
    }
    const existing = this.messages.get(message.seq);
    const item = this.messageElement(message);
    if (existing) existing.replaceWith(item);
    this.messages.set(message.seq, item);
    if (!existing) this.insertInOrder(item, message.seq);
    this.refreshReceipts();
  }

  insertInOrder(item, seq) {
    const later = [...this.messageList.children].find((child) => child !== item && Number(child.dataset.seq) > seq);
    if (later) later.before(item);
    else this.messageList.append(item);
    item.scrollIntoView({ block: "nearest" });
  }

  messageElement(message, status) {
    const mine = message.senderId === session.user.id;
    const kind = message.kind === "system" ? "system" : mine ? "mine" : "theirs";
    const item = el("li", { className: `message ${kind}${message.removed ? " removed" : ""}`, dataset: { seq: message.seq ?? "" } },
      el("span", { className: "text" }, message.text ?? ""),
      message.imageUrl ? el("img", { src: message.imageVariants?.card ?? message.imageUrl, alt: t("chat.image"), className: "chat-image" }) : null,
      el("span", { className: "meta" }, el("time", { dateTime: message.sentAt ?? "" }, formatTime(message.sentAt)),
        mine ? el("span", { className: "receipt", dataset: { status: status ?? "sent" } }, t(`receipt.${status ?? "sent"}`)) : null));
    if (kind === "theirs" && !message.removed) {
      const report = el("button", { type: "button", className: "link report-message", dataset: { action: "report-message" } }, t("chat.report"));
      report.addEventListener("click", () => report.replaceWith(reportForm("message", message.id)));
      item.querySelector(".meta").append(" ", report);
    }
    return item;
  }

  refreshReceipts() {
    for (const [seq, item] of this.messages) {
      const receipt = item.querySelector(".receipt");
      if (!receipt) continue;
      receipt.dataset.status = seq <= this.otherReadSeq ? "read" : "sent";
      receipt.textContent = t(`receipt.${receipt.dataset.status}`);
    }
  }

  /** An operator removed a message: shows the server's copy of it, which now reads as removed. */
  async markRemoved(frame) {
    if (frame.roomId !== this.openRoomId || !this.messages.has(frame.seq)) return;
    try {
      const page = await api(`/v1/chat/rooms/${encodeURIComponent(frame.roomId)}/messages`, { query: { before: frame.seq + 1, limit: 1 } });
      const message = page.items.find((m) => m.seq === frame.seq);
      if (!message || frame.roomId !== this.openRoomId) return;
      this.show(message);
      const room = this.rooms.get(frame.roomId);
      if (room?.lastMessage?.id === message.id) {
        room.lastMessage = message;
        this.renderRooms();
      }
    } catch (error) {
      notify(t("error.messages", { detail: problemSummary(error) }), "error");
    }
  }

  /** The connection's state line: live, connecting, or offline with why. */
  showState() {
    const { state, detail } = this.state.dataset;
    const why = detail === "reconnecting" || detail === "closed" ? t(`chat.${detail}`) : detail;
    this.state.textContent = t(`chat.state.${state}`) + (why ? `: ${why}` : "");
  }

  renderTitle(room) {
    replace(this.title, room.class.name, el("span", { className: "muted" }, ` ${t("chat.with", { name: this.counterpart(room).nickname })}`));
  }

  /** After a change of language: the rooms, the open room's title, times, receipts and report buttons. */
  relabel() {
    if (!session.user) return;
    if (this.state.dataset.state) this.showState();
    this.renderRooms();
    const room = this.rooms.get(this.openRoomId);
    if (room) this.renderTitle(room);
    for (const time of this.messageList.querySelectorAll("time")) time.textContent = formatTime(time.dateTime);
    for (const receipt of this.messageList.querySelectorAll(".receipt")) receipt.textContent = t(`receipt.${receipt.dataset.status}`);
    for (const button of this.messageList.querySelectorAll(".report-message")) button.textContent = t("chat.report");
  }
}
