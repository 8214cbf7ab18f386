//go:build amd64 && !purego

#include "textflag.h"

// func pickPairsAVX2(blk *entPick, pairs int, moves *[1 << 16]moveEnt, mk1 int64, fshift uint64) uint64
//
// pickBlock two entries at a time, one in each 128-bit lane of a Y
// register. An entPick (16 bytes: edge, then sent | wid<<32 | turns<<48 |
// rest<<56) and the arena's moveEnt of its entity (odo, then poseAt |
// evAt<<32) have their words in the same places, so one subtraction of the
// two gives both tests' differences:
//
//   look  = edge - odo - mk1 < 0       the low quadword's sign
//   moved = int32(sent - poseAt) < 0   the sign of the high quadword's low
//                                      doubleword (a doubleword subtraction)
//   due   = turns bit (frame&7)        the high quadword shifted left by
//                                      fshift, its sign
//
// and the entry is picked when look | moved&due: both signs are gathered
// into each lane's two quadwords, VMOVMSKPD takes them (bits A A B B for
// the pair's first and second entry), and the pair's two bits go in at the
// top of the result, which shifts down two per pair: the first entry ends at
// bit 0, as pickBlock's.
TEXT ·pickPairsAVX2(SB), NOSPLIT, $0-48
	MOVQ blk+0(FP), SI
	MOVQ pairs+8(FP), CX
	MOVQ moves+16(FP), DI
	VMOVQ mk1+24(FP), X5        // X5 = (mk1, 0)
	VINSERTI128 $1, X5, Y5, Y5  // in both lanes
	VMOVQ fshift+32(FP), X6
	MOVQ $0xC000000000000000, R12
	XORQ AX, AX                 // the bits, gathered from the top
	MOVQ CX, R13
	TESTQ CX, CX
	JZ done

loop:
	MOVWLZX 12(SI), R8          // the pair's wire ids: moveEnt offsets
	MOVWLZX 28(SI), R9
	SHLQ $4, R8
	SHLQ $4, R9
	VMOVDQU (DI)(R8*1), X1      // Y1 = the two moveEnts
	VINSERTI128 $1, (DI)(R9*1), Y1, Y1
	VMOVDQU (SI), Y0            // Y0 = the two entPicks
	VPSUBQ Y1, Y0, Y2           // low quadwords: edge - odo
	VPSUBQ Y5, Y2, Y2           // - mk1: the sign is look
	VPSUBD Y1, Y0, Y3           // doubleword 2: sent - poseAt
	VPSLLQ $32, Y3, Y3          // high quadwords' sign: moved
	VPSLLQ X6, Y0, Y4           // high quadwords' sign: due
	VPAND Y4, Y3, Y3            // moved & due
	VPBLENDD $0xCC, Y3, Y2, Y2  // look low, moved & due high
	VPSHUFD $0x4E, Y2, Y3       // the quadwords swapped in each lane
	VPOR Y3, Y2, Y2             // both: look | moved&due
	VMOVMSKPD Y2, R10           // bits A A B B
	SHLQ $61, R10               // A to bit 62, B to 63 (and A to 61 ...
	ANDQ R12, R10               // ... cleared)
	SHRQ $2, AX
	ORQ R10, AX
	ADDQ $32, SI
	DECQ CX
	JNZ loop

	MOVQ $64, CX                // the first entry's bit to bit 0
	SHLQ $1, R13
	SUBQ R13, CX
	SHRQ CX, AX

done:
	VZEROUPPER
	MOVQ AX, ret+40(FP)
	RET
