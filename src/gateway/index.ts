// The public face of the gateway: start `gatehouse serve`'s HTTP server and check a
// bind before trying it. Routers and auth are internal until another layer needs them.
export { startGateway } from './server.js';
export { DEFAULT_PORT } from './options.js';
