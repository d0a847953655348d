// SocketFactory over the browser's WebSocket (binary frames as ArrayBuffer).
import type { SocketFactory } from './socket.js';

export const browserSocketFactory: SocketFactory = (url, handlers) => {
  const ws = new WebSocket(url);
  ws.binaryType = 'arraybuffer';
  ws.addEventListener('open', () => handlers.open());
  ws.addEventListener('message', (event: MessageEvent<string | ArrayBuffer>) => handlers.message(event.data));
  // 'error' is always followed by 'close'; reconnecting is decided there.
  ws.addEventListener('close', (event) => handlers.close(event.code, event.reason));
  return {
    send: (data) => ws.send(data),
    close: () => ws.close(),
  };
};
