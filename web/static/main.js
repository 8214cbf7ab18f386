// The page's entry module. It imports the lobby first, which lists the
// rooms while the client loads; then the feature modules, each of which
// registers its hooks (hooks.js) as it is evaluated, once the client is
// ready (client.js); then the game view, which it starts. Hooks of one
// kind run in the order of these imports.

import "./lobby.js";
import "./items.js";
import "./cars.js";
import "./missions.js";
import "./carcall.js";
import "./signals.js";
import "./stealth.js";
import "./social.js";
import "./runs.js";
import "./combat.js";
import "./map.js";
import "./hud.js";
import "./sound.js";
import { start } from "./app.js";

start();
