//go:build amd64 && !purego

#include "textflag.h"
#include "go_asm.h"

// func walkPoses(run *poseRun)
//
// The walk's loop (state.go) with writePose inlined, for the candidates
// run.cands[run.j:run.n]. Registers across the loop:
//
//   DI  run          SI  j
//   R8  &walks[i]    R9  &picks[i], then the change's mask
//   R10 wid          R11 where the next change goes (run.out + run.len)
//   BX  &qpose[wid]  R12 the change's length so far (k)
//   AX CX DX R13     scratch
//
// Each change is written as writePose writes it: id, mask, then the
// groups, each written whole where it would go and counted only when it
// changed (so no branch on which did), position as three int16 steps when
// each fits, else whole. The window past the last change (poseWindow)
// takes the groups written and not counted.
TEXT ·walkPoses(SB), NOSPLIT, $0-8
	MOVQ run+0(FP), DI
	MOVQ poseRun_j(DI), SI
	MOVQ poseRun_out(DI), R11
	ADDQ poseRun_len(DI), R11

loop:
	CMPQ SI, poseRun_n(DI)
	JGE end
	MOVQ poseRun_cands(DI), AX
	MOVLQSX (AX)(SI*4), AX          // i, the slot
	MOVQ AX, R8
	SHLQ $6, R8                     // entWalk__size
	ADDQ poseRun_walks(DI), R8
	MOVQ AX, R9
	SHLQ $4, R9                     // entPick__size
	ADDQ poseRun_picks(DI), R9
	MOVWLZX entPick_wid(R9), R10
	TESTQ R10, R10
	JZ next                         // removed

	// Among the client's own, looked at already?
	MOVQ poseRun_owned(DI), CX
	MOVQ poseRun_nOwned(DI), DX
owned:
	TESTQ DX, DX
	JZ notowned
	CMPL AX, (CX)
	JEQ next
	ADDQ $4, CX
	DECQ DX
	JMP owned

notowned:
	// The general way (keep): the full pose, or an edge may be crossed
	// (p.edge - moves[wid].odo <= mk).
	TESTB $const_hfFull, entWalk_flags(R8)
	JNZ keep
	MOVQ R10, AX
	SHLQ $4, AX                     // moveEnt__size
	ADDQ poseRun_moves(DI), AX
	MOVQ entPick_edge(R9), CX
	SUBQ moveEnt_odo(AX), CX
	CMPQ CX, poseRun_mk(DI)
	JLE keep

	// p.sent = tick
	MOVL poseRun_tick(DI), AX
	MOVL AX, entPick_sent(R9)

	// The groups that differ: q (the arena's) against the pose held.
	MOVQ R10, BX
	SHLQ $5, BX                     // poseWords__size
	ADDQ poseRun_qpose(DI), BX
	MOVQ poseWords_a(BX), AX
	XORQ (entWalk_pose+poseWords_a)(R8), AX   // position x, y
	MOVQ poseWords_b(BX), CX
	XORQ (entWalk_pose+poseWords_b)(R8), CX   // position z, rotation
	MOVQ poseWords_c(BX), DX
	XORQ (entWalk_pose+poseWords_c)(R8), DX   // velocity, spin's first
	MOVL poseWords_d(BX), R13
	XORL (entWalk_pose+poseWords_d)(R8), R13  // spin's other two
	MOVQ CX, R12
	SHLQ $32, R12
	ORQ AX, R12                     // R12 != 0: the position differs
	ORQ CX, AX
	ORQ DX, AX
	ORQ R13, AX
	JZ next                         // nothing differs: no change

	// p.rest: stRest when the quantized velocity and spin are zero.
	MOVL poseWords_d(BX), AX
	ORQ poseWords_c(BX), AX
	SETEQ AX
	SHLB $2, AX                     // const_stRest
	MOVB AX, entPick_rest(R9)

	// The mask: a bit for each group that differs, and the tier.
	NEGQ R12
	SBBQ R12, R12
	ANDL $const_asmPositionBit, R12
	MOVL R12, R9
	SHRQ $32, CX
	NEGQ CX
	SBBQ CX, CX
	ANDL $const_asmRotationBit, CX
	ORL CX, R9
	MOVQ DX, CX
	SHLQ $16, CX
	NEGQ CX
	SBBQ CX, CX
	ANDL $const_asmVelocityBit, CX
	ORL CX, R9
	SHRQ $48, DX
	ORQ R13, DX
	NEGQ DX
	SBBQ DX, DX
	ANDL $const_asmSpinBit, DX
	ORL DX, R9
	MOVBLZX entWalk_tier(R8), AX
	ANDL $3, AX
	SHLL $const_asmTierShift, AX
	ORL AX, R9

	MOVL $4, R12
	TESTL $const_asmPositionBit, R9
	JZ rotation
	// Three steps from the position held, each written; all fit?
	MOVLQSX (poseWords_a)(BX), AX
	MOVLQSX (entWalk_pose+poseWords_a)(R8), CX
	SUBQ CX, AX
	MOVLQSX (poseWords_a+4)(BX), CX
	MOVLQSX (entWalk_pose+poseWords_a+4)(R8), DX
	SUBQ DX, CX
	MOVLQSX (poseWords_b)(BX), DX
	MOVLQSX (entWalk_pose+poseWords_b)(R8), R13
	SUBQ R13, DX
	MOVW AX, 4(R11)
	MOVW CX, 6(R11)
	MOVW DX, 8(R11)
	ADDQ $const_asmStepMax, AX      // fits: 0 <= step + max <= 2 max
	CMPQ AX, $(2*const_asmStepMax+1)
	JCC whole
	ADDQ $const_asmStepMax, CX
	CMPQ CX, $(2*const_asmStepMax+1)
	JCC whole
	ADDQ $const_asmStepMax, DX
	CMPQ DX, $(2*const_asmStepMax+1)
	JCC whole
	ORL $const_asmSmallSteps, R9
	MOVL $const_asmStepsEnd, R12
	JMP rotation
whole:
	MOVQ poseWords_a(BX), AX
	MOVQ AX, 4(R11)
	MOVL poseWords_b(BX), AX
	MOVL AX, 12(R11)
	MOVL $const_asmWholeEnd, R12

rotation:
	MOVL (poseWords_b+4)(BX), AX
	MOVL AX, (R11)(R12*1)
	MOVL R9, AX
	ANDL $const_asmRotationBit, AX  // 2: k += 4
	LEAQ (R12)(AX*2), R12
	// velocity: 6 bytes
	MOVL poseWords_c(BX), AX
	MOVL AX, (R11)(R12*1)
	MOVWLZX (poseWords_c+4)(BX), AX
	MOVW AX, 4(R11)(R12*1)
	MOVL R9, AX
	ANDL $const_asmVelocityBit, AX  // 4: k += 6
	SHRL $1, AX
	LEAL (AX)(AX*2), AX
	ADDQ AX, R12
	// spin: 6 bytes
	MOVWLZX (poseWords_c+6)(BX), AX
	MOVW AX, (R11)(R12*1)
	MOVL poseWords_d(BX), AX
	MOVL AX, 2(R11)(R12*1)
	MOVL R9, AX
	ANDL $const_asmSpinBit, AX      // 256: k += 6
	SHRL $7, AX
	LEAL (AX)(AX*2), AX
	ADDQ AX, R12

	MOVW R10, 0(R11)                // id
	MOVW R9, 2(R11)                 // mask

	// The pose held is the arena's now, as of this tick.
	MOVQ poseWords_a(BX), AX
	MOVQ AX, (entWalk_pose+poseWords_a)(R8)
	MOVQ poseWords_b(BX), AX
	MOVQ AX, (entWalk_pose+poseWords_b)(R8)
	MOVQ poseWords_c(BX), AX
	MOVQ AX, (entWalk_pose+poseWords_c)(R8)
	MOVL poseWords_d(BX), AX
	MOVL AX, (entWalk_pose+poseWords_d)(R8)
	MOVL poseRun_tick(DI), AX
	MOVL AX, (entWalk_pose+poseWords_tick)(R8)

	ADDQ R12, R11
	INCQ poseRun_outN(DI)

next:
	INCQ SI
	JMP loop

keep:
end:
	MOVQ SI, poseRun_j(DI)
	SUBQ poseRun_out(DI), R11
	MOVQ R11, poseRun_len(DI)
	RET
