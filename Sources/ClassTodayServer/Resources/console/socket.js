// The chat WebSocket: connects with the session's token, reconnects with growing delays when the connection drops
// (a server restart, a network change), and tells its owner each time it is open again so that it can sync.

/**
 * A reconnecting chat socket. `onFrame(frame)` gets every server frame; `onState(state, detail)` "connecting", "live" or
 * "offline" with "reconnecting", "closed" or the server's reason for closing.
 */
export class ChatSocket {
  constructor({ token, onFrame, onOpen, onState }) {
    this.token = token;
    this.onFrame = onFrame;
    this.onOpen = onOpen;
    this.onState = onState;
    this.retryDelay = 500;
    this.stopped = false;
    this.connect();
  }

  connect() {
    if (this.stopped) return;
    this.onState("connecting");
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    // Browsers cannot set headers on a WebSocket; the API takes the token as a query parameter on this route.
    const socket = new WebSocket(`${scheme}//${location.host}/v1/chat/ws?token=${encodeURIComponent(this.token)}`);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.retryDelay = 500;
      this.onState("live");
      this.onOpen();
    });
    socket.addEventListener("message", (event) => {
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      this.onFrame(frame);
    });
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.stopped) return;
      // 1008: the account was suspended or deleted, or the token revoked; reconnecting would not help.
      if (event.code === 1008) {
        this.onState("offline", event.reason || "closed");
        return;
      }
      this.onState("offline", "reconnecting");
      setTimeout(() => this.connect(), this.retryDelay);
      this.retryDelay = Math.min(this.retryDelay * 2, 8000);
    });
  }

  /** Sends a frame; false when the socket is not open (the caller keeps what it must resend). */
  send(frame) {
    if (this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(frame));
    return true;
  }

  /** Closes for good (sign-out). */
  stop() {
    this.stopped = true;
    this.socket?.close(1000, "signed out");
    this.socket = null;
  }
}
