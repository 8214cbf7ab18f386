package levels

// FormatVersion is the version of the level format this package reads and
// writes. A level file says which version it was written for; a file of
// another version is refused rather than half understood.
const FormatVersion = 1

// Vec2 is a point on the ground (or a direction), in metres: X east, Y north.
// In JSON it is an array of two numbers, [x, y].
type Vec2 struct{ X, Y float32 }

// Level is a whole level: the ground, the static world and the places the
// systems spawn things at. A Level from Parse or Load (or one that passed
// Validate) also carries the lookups of query.go; do not change a Level's
// roads or spawns after that without calling Validate again.
type Level struct {
	// Name is the level's name ("main-city", "test-flat"): the embedded
	// file is data/<name>.json. The server's defaults go by its prefix
	// (main-*, test-*).
	Name string `json:"name"`
	// Version is the format version the file was written for; it must be
	// FormatVersion.
	Version int `json:"version"`
	// Ground is the playable area and the height of the ground plane.
	Ground Ground `json:"ground"`
	// Rules are the level's defaults for what a game's rules leave open.
	Rules Rules `json:"rules"`
	// Buildings are the static colliders: footprints with heights,
	// houses and walls alike.
	Buildings []Building `json:"buildings,omitempty"`
	// Roads are the road graph the traffic drives on.
	Roads Roads `json:"roads"`
	// Pavements are where pedestrians walk.
	Pavements []Pavement `json:"pavements,omitempty"`
	// Spawns are the level's spawn points, each with a role.
	Spawns []Spawn `json:"spawns,omitempty"`
	// SpawnAreas are areas the police cars or the ambient traffic also
	// come out of, at a point of a lane inside: a game adds its own
	// (Level.With).
	SpawnAreas []SpawnArea `json:"spawnAreas,omitempty"`
	// Zones are the safe and restricted areas.
	Zones []Zone `json:"zones,omitempty"`
	// Gates are the gates and barriers that open for a car whose driver
	// may pass.
	Gates []Gate `json:"gates,omitempty"`
	// Races are routes through race gates, for the missions (races.go).
	Races []Race `json:"races,omitempty"`
	// VehicleSpawners park cars in bays (a garage's, a car park's).
	VehicleSpawners []VehicleSpawner `json:"vehicleSpawners,omitempty"`
	// NPCSpawners put guards, civilians, drivers, targets and VIPs in
	// the room.
	NPCSpawners []NPCSpawner `json:"npcSpawners,omitempty"`
	// Shops are the counters that sell items.
	Shops []Shop `json:"shops,omitempty"`
	// Containers are the crates and lockers with items in them.
	Containers []Container `json:"containers,omitempty"`
	// Pickups are items lying loose on the ground.
	Pickups []Pickup `json:"pickups,omitempty"`
	// Cameras are the security cameras: they sweep to and fro and see
	// what comes within their arc and range.
	Cameras []Camera `json:"cameras,omitempty"`

	idx index // lookups built by Validate (query.go)
}

// Ground is the level's playable area, an axis-aligned rectangle, and the
// height of the ground plane. Everything of the level lies within it.
type Ground struct {
	// Min is the south-west corner, in metres.
	Min Vec2 `json:"min"`
	// Max is the north-east corner, in metres; Max.X > Min.X, Max.Y > Min.Y.
	Max Vec2 `json:"max"`
	// Height is the Z of the ground plane, in metres.
	Height float32 `json:"height"`
}

// Rules are the level's defaults for what a game's rules leave open. A nil
// field leaves the choice to the server (a few dozen cars on a main-* level,
// none on a test-* one).
type Rules struct {
	// Traffic is the number of ambient cars to keep when the game's rules
	// do not say; 0 means none.
	Traffic *int `json:"traffic,omitempty"`
	// Pedestrians is the number of pedestrians to keep around the players
	// when the game's rules do not say; 0 means none.
	Pedestrians *int `json:"pedestrians,omitempty"`
}

// BuildingUse says what a building is. The systems find the hospital, the
// police station and the garages by it; "wall" is a fence or wall (a thin
// footprint) rather than a house.
type BuildingUse string

// The building uses.
const (
	UseGeneric     BuildingUse = "generic"
	UseResidential BuildingUse = "residential"
	UseCommercial  BuildingUse = "commercial"
	UseOffice      BuildingUse = "office"
	UseIndustrial  BuildingUse = "industrial"
	UseWarehouse   BuildingUse = "warehouse"
	UseShop        BuildingUse = "shop"
	UseHospital    BuildingUse = "hospital"
	UsePolice      BuildingUse = "police"
	UseGarage      BuildingUse = "garage"
	UseWall        BuildingUse = "wall"
)

// BuildingUses lists every known BuildingUse, in the order FORMAT.md gives.
var BuildingUses = []BuildingUse{
	UseGeneric, UseResidential, UseCommercial, UseOffice, UseIndustrial,
	UseWarehouse, UseShop, UseHospital, UsePolice, UseGarage, UseWall,
}

// Building is a static collider: a footprint extruded from the ground to
// Height. Its interior is solid; nothing spawns inside it.
type Building struct {
	// ID names the building among all of the level's string ids.
	ID string `json:"id"`
	// Footprint is a simple polygon (no edge crosses another),
	// counter-clockwise seen from above, 3 to MaxPolygonPoints points in
	// metres; the last point joins the first.
	Footprint []Vec2 `json:"footprint"`
	// Height is the height above the ground, in metres, > 0.
	Height float32 `json:"height"`
	// Use says what the building is.
	Use BuildingUse `json:"use"`
}

// Roads are the road graph: nodes joined by one-way lanes.
type Roads struct {
	// Nodes are the graph's nodes on the roads' centrelines.
	Nodes []Node `json:"nodes,omitempty"`
	// Lanes are the one-way lanes between nodes.
	Lanes []Lane `json:"lanes,omitempty"`
	// Signals are the traffic signals at intersections (signals.go).
	Signals []Signal `json:"signals,omitempty"`
}

// Node is a point of the road graph, on a road's centreline.
type Node struct {
	// ID names the node among the nodes (>= 0).
	ID int `json:"id"`
	// Pos is where the node is, in metres.
	Pos Vec2 `json:"pos"`
	// Intersection is whether roads meet here (the traffic yields and
	// chooses its way here); false for a mere bend or a dead end.
	Intersection bool `json:"intersection,omitempty"`
}

// Lane is a one-way lane from one node to another. A two-way road is two
// lanes in opposite directions, each offset to the right-hand side of its
// own direction. The lane's centreline is the segment from the From node to
// the To node moved Offset metres to the right.
type Lane struct {
	// ID names the lane among the lanes (>= 0).
	ID int `json:"id"`
	// From is the id of the node the lane leaves.
	From int `json:"from"`
	// To is the id of the node the lane enters; To != From.
	To int `json:"to"`
	// Width is the lane's width, in metres, > 0.
	Width float32 `json:"width"`
	// Offset is how far the lane's centreline lies to the right of the
	// nodes' line (looking from From to To), in metres, >= 0.
	Offset float32 `json:"offset"`
	// SpeedLimit is the lane's speed limit, in metres per second, > 0.
	SpeedLimit float32 `json:"speedLimit"`
	// NoTraffic keeps the ambient traffic off the lane (a driveway into a
	// yard); players and missions drive it all the same.
	NoTraffic bool `json:"noTraffic,omitempty"`
}

// Pavement is a walkway: a polyline with a width. Pedestrians walk along
// its centreline.
type Pavement struct {
	// ID names the pavement among all of the level's string ids.
	ID string `json:"id"`
	// Points are the centreline's points, in metres: at least 2, or 3
	// when Closed; consecutive points differ.
	Points []Vec2 `json:"points"`
	// Width is the walkway's width, in metres, > 0.
	Width float32 `json:"width"`
	// Closed joins the last point back to the first (a loop round a
	// block).
	Closed bool `json:"closed,omitempty"`
}

// SpawnRole says who comes out of a spawn point.
type SpawnRole string

// The spawn roles.
const (
	// RolePlayer: a joining player comes in here, in a car of their own.
	RolePlayer SpawnRole = "player"
	// RoleHospital: a player comes back here after a death (on foot).
	RoleHospital SpawnRole = "hospital"
	// RolePolice: police cars come out of here.
	RolePolice SpawnRole = "police"
	// RoleTraffic: ambient cars come out of here (on a lane, facing its
	// way).
	RoleTraffic SpawnRole = "traffic"
	// RolePedestrian: ambient pedestrians come out of here (on a
	// pavement).
	RolePedestrian SpawnRole = "pedestrian"
	// RoleGuard: a mission's groups of enemies come out of here.
	RoleGuard SpawnRole = "guard"
	// RolePlace: nothing comes out by itself: a named place that a game
	// or a mission finds by its id (Level.Place), such as a team's start
	// or a drop. It needs an id.
	RolePlace SpawnRole = "place"
)

// SpawnRoles lists every known SpawnRole.
var SpawnRoles = []SpawnRole{RolePlayer, RoleHospital, RolePolice, RoleTraffic, RolePedestrian, RoleGuard, RolePlace}

// AreaRoles lists the roles a spawn area may have: police cars and ambient
// cars come out of a lane inside one.
var AreaRoles = []SpawnRole{RolePolice, RoleTraffic}

// Spawn is a spawn point: a place, a heading and who comes out of it.
type Spawn struct {
	// ID optionally names the spot among all of the level's string ids,
	// so that a game or a run mission can name it (Level.Place): a
	// team's start.
	ID string `json:"id,omitempty"`
	// Role says who comes out here.
	Role SpawnRole `json:"role"`
	// Pos is the spawn point, in metres; never inside a building.
	Pos Vec2 `json:"pos"`
	// Yaw is the heading of what spawns, in radians (0 faces east,
	// counter-clockwise), within [-2π, 2π].
	Yaw float32 `json:"yaw"`
}

// SpawnArea is an area that police cars or ambient cars (its Role) come
// out of besides the spawn points of their role: at a point of a lane
// open to traffic inside it, facing the lane's way (Level.LanePointsIn).
// Each system picks the point that suits it: the police the one nearest
// to the player they are sent after, the traffic the one nearest to the
// players at its spawn distance.
type SpawnArea struct {
	// ID names the area among all of the level's string ids.
	ID string `json:"id"`
	// Role is police or traffic (AreaRoles).
	Role SpawnRole `json:"role"`
	// Polygon is the area's outline: a simple counter-clockwise polygon
	// of 3 to MaxPolygonPoints points, in metres.
	Polygon []Vec2 `json:"polygon"`
}

// ZoneKind says what a zone does.
type ZoneKind string

// The zone kinds.
const (
	// ZoneSafe: no damage inside.
	ZoneSafe ZoneKind = "safe"
	// ZoneRestricted: entering alerts the guards or raises the Heat.
	ZoneRestricted ZoneKind = "restricted"
)

// ZoneKinds lists every known ZoneKind.
var ZoneKinds = []ZoneKind{ZoneSafe, ZoneRestricted}

// Zone is an area of the ground with a kind.
type Zone struct {
	// ID names the zone among all of the level's string ids.
	ID string `json:"id"`
	// Kind says what the zone does.
	Kind ZoneKind `json:"kind"`
	// Polygon is the zone's outline: a simple counter-clockwise polygon of
	// 3 to MaxPolygonPoints points, in metres.
	Polygon []Vec2 `json:"polygon"`
}

// GateKind says what a gate looks like; both open by themselves for a car
// whose driver may pass.
type GateKind string

// The gate kinds.
const (
	GateGate    GateKind = "gate"    // a solid gate in a wall or fence
	GateBarrier GateKind = "barrier" // a boom barrier across a driveway
)

// GateKinds lists every known GateKind.
var GateKinds = []GateKind{GateGate, GateBarrier}

// Gate is a gate or barrier across an opening. It opens by itself for a car
// whose driver passes its Rule, and is shut otherwise.
type Gate struct {
	// ID names the gate among all of the level's string ids.
	ID string `json:"id"`
	// Kind is gate or barrier.
	Kind GateKind `json:"kind"`
	// Pos is the centre of the opening, in metres.
	Pos Vec2 `json:"pos"`
	// Yaw is the heading of a car driving in through the opening, in
	// radians; the gate spans Width across it.
	Yaw float32 `json:"yaw"`
	// Width is the opening's width, in metres, > 0.
	Width float32 `json:"width"`
	// Rule says whose car it opens for.
	Rule GateRule `json:"rule"`
}

// GateRule says whose car a gate opens for: the driver passes if any of the
// set conditions holds. An empty rule opens for nobody.
type GateRule struct {
	// Party opens for a driver of this party (1..65535); 0 is no party
	// condition.
	Party uint16 `json:"party,omitempty"`
	// KeyTag opens for a driver carrying a key with this tag; "" is no
	// key condition.
	KeyTag string `json:"keyTag,omitempty"`
	// Police opens for police cars.
	Police bool `json:"police,omitempty"`
}

// VehicleSpawner parks cars of one model in its bays with the world (and
// again on a level reset), and puts the next one in a bay whose car is gone.
type VehicleSpawner struct {
	// ID names the spawner among all of the level's string ids.
	ID string `json:"id"`
	// Model is the car model's name (as the game's car models spell it).
	// A garage's spawner (Garage set) may leave it empty: it then parks no
	// cars of its own, and its bays are free for the cars players keep.
	Model string `json:"model,omitempty"`
	// Bays are where the cars park: at least one, never inside a
	// building.
	Bays []Bay `json:"bays"`
	// Respawn is how long a bay stays empty after its car is gone before
	// the next one is put there, in seconds, >= 0.
	Respawn float32 `json:"respawn,omitempty"`
	// Locked parks the cars with their doors locked.
	Locked bool `json:"locked,omitempty"`
	// KeyTag is the tag the cars' keys answer to; "" has no key.
	KeyTag string `json:"keyTag,omitempty"`
	// Garage is the id of the garage building (Use "garage") these bays
	// belong to, where players keep their cars; "" is none.
	Garage string `json:"garage,omitempty"`
	// Price is the level's garage price, in cash (the game's rules may
	// set their own), >= 0; only with a Garage.
	Price int `json:"price,omitempty"`
}

// Bay is a parking place of a vehicle spawner: where the car's centre is and
// which way it faces.
type Bay struct {
	// Pos is the car's centre, in metres.
	Pos Vec2 `json:"pos"`
	// Yaw is the car's heading, in radians.
	Yaw float32 `json:"yaw"`
}

// NPCRole says what the NPCs of a spawner are.
type NPCRole string

// The NPC roles.
const (
	NPCGuard    NPCRole = "guard"    // an armed sentry: patrols, sees, raises the alert
	NPCCivilian NPCRole = "civilian" // a bystander
	NPCDriver   NPCRole = "driver"   // comes with a car and drives it
	NPCTarget   NPCRole = "target"   // a mission's target
	NPCVIP      NPCRole = "vip"      // a guarded person
)

// NPCRoles lists every known NPCRole.
var NPCRoles = []NPCRole{NPCGuard, NPCCivilian, NPCDriver, NPCTarget, NPCVIP}

// NPCSpawner puts Count NPCs of a role in the room with the world (and again
// on a level reset), or on a Schedule.
type NPCSpawner struct {
	// ID names the spawner among all of the level's string ids.
	ID string `json:"id"`
	// Role says what the NPCs are.
	Role NPCRole `json:"role"`
	// Pos is where they come in, in metres; never inside a building.
	Pos Vec2 `json:"pos"`
	// Yaw is the heading they face, in radians.
	Yaw float32 `json:"yaw"`
	// Count is how many the spawner keeps, 1..MaxNPCCount.
	Count int `json:"count"`
	// Radius scatters them round Pos, in metres, >= 0.
	Radius float32 `json:"radius,omitempty"`
	// Patrol is a guard's closed route (its points in order, in metres),
	// empty to stand still; never inside a building.
	Patrol []Vec2 `json:"patrol,omitempty"`
	// Schedule, when set, says when they are about and how soon a lost one
	// is replaced; nil puts them in once.
	Schedule *Schedule `json:"schedule,omitempty"`
	// Items are what each of its NPCs carries (a key on a guard): dropped
	// on the ground where the NPC dies, for anyone to pick up.
	Items []Stack `json:"items,omitempty"`
}

// Schedule is when a spawner's NPCs are about, by the room clock, and how
// soon one that is gone is replaced.
type Schedule struct {
	// Every is the time before a lost NPC is replaced, in seconds, >= 0;
	// 0 never replaces one until the level is reset.
	Every float32 `json:"every,omitempty"`
	// From and To are the hours of the room clock (0..24) the NPCs are
	// about: from From up to To, across midnight when From > To; equal
	// values mean all day.
	From float32 `json:"from,omitempty"`
	To   float32 `json:"to,omitempty"`
}

// Shop is a counter that sells items at the game's prices.
type Shop struct {
	// ID names the shop among all of the level's string ids.
	ID string `json:"id"`
	// Building is the id of the shop's building, "" for a stall.
	Building string `json:"building,omitempty"`
	// Pos is the counter a player walks up to, in metres; never inside a
	// building.
	Pos Vec2 `json:"pos"`
	// Yaw is the heading the counter faces, in radians.
	Yaw float32 `json:"yaw"`
	// Items are the ids of the items it sells (the game's items), at least
	// one, each once.
	Items []string `json:"items"`
}

// ContainerKind says what a container is.
type ContainerKind string

// The container kinds.
const (
	ContainerCrate  ContainerKind = "crate"  // a crate on the ground: breaks or opens
	ContainerLocker ContainerKind = "locker" // a locker with a door
)

// ContainerKinds lists every known ContainerKind.
var ContainerKinds = []ContainerKind{ContainerCrate, ContainerLocker}

// Container is a crate or locker with items in it, laid out with the world
// and again on a level reset (shut, and locked as the level has it).
type Container struct {
	// ID names the container among all of the level's string ids.
	ID string `json:"id"`
	// Kind is crate or locker.
	Kind ContainerKind `json:"kind"`
	// Pos is where it stands, in metres; never inside a building.
	Pos Vec2 `json:"pos"`
	// Yaw is the heading its front faces, in radians.
	Yaw float32 `json:"yaw"`
	// Locked is whether it starts locked.
	Locked bool `json:"locked,omitempty"`
	// KeyTag is the tag of the key that unlocks it; "" has no key.
	KeyTag string `json:"keyTag,omitempty"`
	// Items are what is inside.
	Items []Stack `json:"items,omitempty"`
}

// Stack is a number of one item.
type Stack struct {
	// Item is the item's id (the game's items).
	Item string `json:"item"`
	// Count is how many, 1..MaxStack.
	Count int `json:"count"`
}

// Pickup is an item lying loose on the ground, laid out with the world and
// again on a level reset.
type Pickup struct {
	// Item is the item's id (the game's items).
	Item string `json:"item"`
	// Count is how many, 1..MaxStack.
	Count int `json:"count"`
	// Pos is where it lies, in metres; never inside a building.
	Pos Vec2 `json:"pos"`
}

// Camera is a security camera, mounted where it stands: it turns to and fro
// by Sweep either side of Yaw, once there and back every Period seconds, and
// sees a player within Range metres and Arc/2 of the way it faces, along a
// clear line. It is laid out with the world and again, whole and on, on a
// level reset; a camera shot out stays broken until then.
type Camera struct {
	// ID names the camera among all of the level's string ids.
	ID string `json:"id"`
	// Pos is where it is mounted, in metres; never inside a building.
	Pos Vec2 `json:"pos"`
	// Yaw is the heading it faces in the middle of its sweep, in radians.
	Yaw float32 `json:"yaw"`
	// Arc is its field of view, in radians: (0, 2π].
	Arc float32 `json:"arc"`
	// Range is how far it sees, in metres: (0, MaxCameraRange].
	Range float32 `json:"range"`
	// Sweep is how far it turns either side of Yaw, in radians: [0, π];
	// 0 holds it still.
	Sweep float32 `json:"sweep,omitempty"`
	// Period is the seconds of one sweep there and back, > 0 when Sweep
	// is; a still camera leaves it out.
	Period float32 `json:"period,omitempty"`
}
