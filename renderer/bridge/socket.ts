// The little the web client needs from a WebSocket. The browser adapter is in
// browser-socket.ts; unit tests plug in a fake. DOM-free.

export interface SocketHandlers {
  open(): void;
  message(data: string | ArrayBuffer): void;
  close(code: number, reason: string): void;
}

export interface BridgeSocket {
  send(data: string | ArrayBuffer): void;
  close(): void;
}

export type SocketFactory = (url: string, handlers: SocketHandlers) => BridgeSocket;
