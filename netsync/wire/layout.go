package wire

// An entity's record is its full snapshot's record (EntityRecordBytes: who
// and what it is, what drives it, what a person does, its flags and its full
// pose in float32) followed by its pose quantized (QuantPoseBytes). The record
// is cut into GroupCount groups, contiguous byte ranges that travel only when
// their bytes change. PROTOCOL.md draws the table.

// The groups of a record. A group's number is its bit in a change's mask and
// its place in a change: groups travel in this order.
const (
	GroupPosition = iota // quantized position: 3 x int32, 1/PositionScale m
	GroupRotation        // quantized rotation: smallest three in a uint32
	GroupVelocity        // quantized linear velocity: 3 x int16, 1/VelocityScale m/s
	GroupDrive           // throttle, brake, steer, held buttons; health
	GroupAction          // what a person does: action, weapon, aim, timer
	GroupFlags           // the visible state bits (Flag*)
	GroupIdentity        // kind, model, variant, party, player, generation, seat links
	GroupFullPose        // 13 x float32: position, quaternion, linear and angular velocity
	GroupSpin            // quantized angular velocity: 3 x int16, 1/SpinScale rad/s
	GroupCount           // number of groups; not a group
)

// Byte offsets and sizes in a Record. The full snapshot's record comes first
// (identity, drive, action, flags, full pose), then the quantized pose.
const (
	IdentityAt    = 0
	KindAt        = IdentityAt + 0  // u8 Kind
	ModelAt       = IdentityAt + 1  // u8
	VariantAt     = IdentityAt + 2  // u8
	PartyAt       = IdentityAt + 3  // u16: a room numbers its parties and teams from 1
	PlayerAt      = IdentityAt + 5  // u16: a room numbers its players from 1, up to its size
	GenAt         = IdentityAt + 7  // u8: the life of the entity under its wire id
	VehicleAt     = IdentityAt + 8  // u16 wire id of the vehicle sat in, 0 for none
	SeatAt        = IdentityAt + 10 // u8 seat in that vehicle, 0 is the driver's
	TractorAt     = IdentityAt + 11 // u16 wire id of the car towing a trailer
	IdentityBytes = 13

	DriveAt    = IdentityAt + IdentityBytes // 13
	ThrottleAt = DriveAt + 0                // u8, 0..255 for 0..1
	BrakeAt    = DriveAt + 1                // u8, 0..255 for 0..1
	SteerAt    = DriveAt + 2                // i8, -127..127 for -1..1
	HeldAt     = DriveAt + 3                // u16 buttons held
	HPAt       = DriveAt + 5                // u16
	MaxHPAt    = DriveAt + 7                // u16
	DriveBytes = 9

	ActionAt    = DriveAt + DriveBytes // 22
	ActAt       = ActionAt + 0         // u8 Act*
	WeaponAt    = ActionAt + 1         // u8
	AimYawAt    = ActionAt + 2         // i16 angle, 2pi/65536 rad
	AimPitchAt  = ActionAt + 4         // i16 angle, 2pi/65536 rad
	TimerAt     = ActionAt + 6         // u16 ticks
	ActionBytes = 8

	FlagsAt    = ActionAt + ActionBytes // 30
	FlagsBytes = 2

	FullPoseAt    = FlagsAt + FlagsBytes // 32: 13 x float32 bits
	FullPoseBytes = 13 * 4

	// EntityRecordBytes is the full snapshot's record: everything but the
	// quantized pose.
	EntityRecordBytes = FullPoseAt + FullPoseBytes // 84

	PositionAt    = EntityRecordBytes // 84
	PositionBytes = 12
	RotationAt    = PositionAt + PositionBytes // 96
	RotationBytes = 4
	VelocityAt    = RotationAt + RotationBytes // 100
	VelocityBytes = 6
	SpinAt        = VelocityAt + VelocityBytes // 106
	SpinBytes     = 6

	// QuantPoseBytes is the quantized pose: position, rotation, velocity
	// and spin.
	QuantPoseBytes = PositionBytes + RotationBytes + VelocityBytes + SpinBytes // 28

	// RecordBytes is a whole record.
	RecordBytes = EntityRecordBytes + QuantPoseBytes // 112

	// PoseAt splits a record in two: the pose groups (the full pose and the
	// quantized one, MaskPose) are its bytes from PoseAt on, the others
	// (MaskState) the bytes before. The arena tells a pose change from
	// another with two compares.
	PoseAt = FullPoseAt // 30
)

// Record is one entity's record: the bytes a client holds for it.
type Record [RecordBytes]byte

var groupAt = [GroupCount]uint8{PositionAt, RotationAt, VelocityAt, DriveAt, ActionAt, FlagsAt, IdentityAt, FullPoseAt, SpinAt}
var groupBytes = [GroupCount]uint8{PositionBytes, RotationBytes, VelocityBytes, DriveBytes, ActionBytes, FlagsBytes, IdentityBytes, FullPoseBytes, SpinBytes}

// GroupAt returns the offset of group g in a Record.
func GroupAt(g int) int { return int(groupAt[g]) }

// GroupBytes returns the size of group g in a Record and in a change
// (except a position sent as SmallSteps: SmallStepBytes).
func GroupBytes(g int) int { return int(groupBytes[g]) }

// Group returns the bytes of group g of r.
func (r *Record) Group(g int) []byte {
	at := int(groupAt[g])
	return r[at : at+int(groupBytes[g])]
}

// The bits of a change's mask above the groups' (bits 0 to 8).
const (
	// MaskGroups are the group bits.
	MaskGroups uint16 = 1<<GroupCount - 1
	// SmallSteps (bit 9): the position travels as three int16 steps from
	// the position the client holds (SmallStepBytes instead of
	// PositionBytes). Only with the position bit.
	SmallSteps uint16 = 1 << 9
	// PoseFull (bit 10): the entity's pose for this client is its full
	// pose (group 7), not the quantized one. Set on every change of the
	// client's own character, car and trailer; a change with no group
	// carries a switch alone.
	PoseFull uint16 = 1 << 10
	// TierShift is where the tier sits in the mask (bits 11 and 12).
	TierShift = 11
	// MaskTier are the tier's bits.
	MaskTier uint16 = 3 << TierShift
	// PoseAge (bit 13): a byte after the mask says how many ticks before
	// the frame's tick the pose carried was measured. The ordered encoder
	// never sets it; the acked snapshots do.
	PoseAge uint16 = 1 << 13
	// MaskReserved are bits no frame may set (14 and 15).
	MaskReserved uint16 = 0xC000

	// MaskQuantPose are the quantized pose's groups.
	MaskQuantPose uint16 = 1<<GroupPosition | 1<<GroupRotation | 1<<GroupVelocity | 1<<GroupSpin
	// MaskFullPose is the full pose's group.
	MaskFullPose uint16 = 1 << GroupFullPose
	// MaskPose are the groups that make a pose: a change carrying any of
	// them measured the entity's pose.
	MaskPose = MaskQuantPose | MaskFullPose
	// MaskState are the groups that are not the pose.
	MaskState = MaskGroups &^ MaskPose
)

// SmallStepBytes is the size of a position sent as SmallSteps.
const SmallStepBytes = 6

// SmallStepMax is the largest step, in 1/PositionScale m, SmallSteps carries
// on one axis (an int16: 127.996 m). A position that moved more on any axis
// goes whole.
const SmallStepMax = 1<<15 - 1

// Tiers. A tier says how often an entity's pose goes to a client.
const (
	// TierCount is the number of tiers: the mask has two bits for the tier.
	TierCount = 4
)

// TierEvery is how often each tier's pose goes, in snapshots: every
// snapshot (20 Hz) for the nearest, every 8th (2.5 Hz) for the farthest.
// Each is a power of two so a turn is a mask (see Due).
var TierEvery = [TierCount]uint32{1, 2, 4, 8}

// Due reports whether an entity of tier tier has its turn in the frame
// numbered frame. Entities of a tier take their turns spread over the
// frames by wire id, so the far entities' poses do not all come in one
// frame.
func Due(tier uint8, frame uint32, eid uint16) bool {
	return (frame+uint32(eid))&(TierEvery[tier&3]-1) == 0
}

// MaskTierOf returns the tier bits of tier t.
func MaskTierOf(t uint8) uint16 { return uint16(t&3) << TierShift }

// TierOf returns the tier carried by a mask.
func TierOf(mask uint16) uint8 { return uint8((mask & MaskTier) >> TierShift) }

// Area of interest, in metres on the ground (X and Y).
const (
	// AOIRadius is the radius within which an entity comes into a
	// client's snapshots.
	AOIRadius float32 = 250
	// AOILeaveRadius is the radius beyond which it leaves them again:
	// 10% more than AOIRadius, so an entity on the edge does not pop in and
	// out each frame.
	AOILeaveRadius float32 = 275
)

// TierRadius are the distances where each tier ends: tier 0 within 50 m
// (a car at 30 m/s crosses it in under 2 s), tier 1 within 100 m, tier 2
// within 175 m, tier 3 beyond. They are 0.2, 0.4 and 0.7 of AOIRadius.
var TierRadius = [TierCount - 1]float32{50, 100, 175}

// TierHysteresis is how far past a tier's edge an entity must go before its
// tier changes: a tier change costs a change of its own, so an entity on an
// edge must not flip every frame.
const TierHysteresis float32 = 4

// CheckEvery is how often a frame carries the check: in every keyframe, and
// in one frame of every 64, which is every 3.2 s at 20 snapshots per second.
// Over an ordered, reliable connection a desync is a bug, not a loss:
// finding it within seconds is enough. FNV-1a waits on itself byte after
// byte. The server's check hashes a run of zero bytes in one step, and takes
// ~7 us for a client of 114 entities on the peer trace: ~0.11 us per frame,
// spread over 64.
const CheckEvery = 64

// SnapshotEvery is the ticks between two snapshots of a client: 20
// snapshots per second at 60 ticks per second. It is the one source: the
// server sends on it, and its welcome tells the clients.
const SnapshotEvery = 3

// GroupEqual reports whether group g holds the same bytes in a and b. It
// compares machine words, not bytes: the encoders compare groups for every
// entity of every client.
func GroupEqual(a, b *Record, g int) bool {
	at, n := int(groupAt[g]), int(groupBytes[g])
	x, y := a[at:at+n], b[at:at+n]
	switch {
	case n >= 8:
		for i := 0; i+8 <= n; i += 8 {
			if le.Uint64(x[i:]) != le.Uint64(y[i:]) {
				return false
			}
		}
		return le.Uint64(x[n-8:]) == le.Uint64(y[n-8:])
	case n >= 4:
		return le.Uint32(x) == le.Uint32(y) && le.Uint32(x[n-4:]) == le.Uint32(y[n-4:])
	default:
		return le.Uint16(x) == le.Uint16(y)
	}
}

// CopyGroup copies group g of src into dst and reports whether its bytes
// differed. Like GroupEqual it goes by machine words.
func CopyGroup(dst, src *Record, g int) bool {
	if GroupEqual(dst, src, g) {
		return false
	}
	at, n := int(groupAt[g]), int(groupBytes[g])
	copy(dst[at:at+n], src[at:at+n])
	return true
}
