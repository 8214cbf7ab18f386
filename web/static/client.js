// The project's Go client compiled to WebAssembly (web/wasm, client.wasm),
// loaded once. This module's evaluation waits for the client: every module
// that imports it runs with the client ready. It exports the client's API
// (foi, also window.foi) and the constants the Go side hands the page
// (foi.constants, web/wasm Constants), by group. The page declares no copy
// of a Go constant (web/wasm TestJSCopiesNoConstant).

let api;
try {
  const ready = new Promise((resolve) => { window.foiReady = resolve; }); // main_js.go calls it once set up
  const go = new Go(); // wasm_exec.js, a classic script loaded before the modules
  const res = await WebAssembly.instantiateStreaming(fetch("client.wasm"), go.importObject);
  go.run(res.instance);
  await ready;
  api = window.foi;
} catch (e) {
  const el = document.getElementById("loading");
  el.textContent = "Could not load the client: " + e.message;
  el.className = "error";
  throw e;
}

// foi is the client's API: start, frame, tick, view, state, command,
// events, lights, places, title, route, carToEnter, carToLock, constants.
export const foi = api;

const C = foi.constants;
export const TICK_RATE = C.tickRate;
export const K = C.kind;
export const VEHICLE_KINDS = C.vehicleKinds;
export const PERSON_KINDS = C.personKinds;
export const ACT = C.act;
export const F = C.flag;
export const LIGHT = C.light;
export const WEAPON = C.weapon;
export const KEY = C.key;
export const D = C.draw;
export const OWN = C.own;
export const ITEMS = C.items;
export const CARS = C.cars;
export const GRENADE = C.grenade;
export const RECONNECT = C.reconnect;
export const MODEL = C.model;
export const MODEL_NAMES = C.modelNames;
