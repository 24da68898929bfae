/* SPDX-License-Identifier: GPL-2.0 */
/*
 * insncal: the guest's side of insncount (x86_64, static, no libc).
 *
 *   insncal     executes the marker instruction once: the plugin writes a
 *               snapshot of its counters (/bin/insnmark is this program)
 *   insncal N   executes a loop of N iterations of two instructions (dec, jnz)
 *               and nothing else that depends on N: 2 * N instructions more
 *               than insncal 0, the calibration's known count
 *
 * Both exit with status 0.
 */
	.text
	.globl	_start
_start:
	cmpq	$2, (%rsp)		/* argc */
	jl	.Lmark
	movq	16(%rsp), %rsi		/* argv[1] */
	xorl	%ecx, %ecx
.Lparse:				/* rcx = decimal value of argv[1] */
	movzbl	(%rsi), %eax
	subl	$'0', %eax
	cmpl	$9, %eax
	ja	.Lloop
	imulq	$10, %rcx, %rcx
	addq	%rax, %rcx
	incq	%rsi
	jmp	.Lparse
.Lloop:
	testq	%rcx, %rcx
	jz	.Lexit
.Liter:					/* the counted loop: two instructions */
	decq	%rcx
	jnz	.Liter
.Lexit:
	movl	$60, %eax		/* exit(0) */
	xorl	%edi, %edi
	syscall
.Lmark:
	/* The marker: movabs $"INSNMARK", %r11 (insncount/src/map.rs, MARKER). */
	movabsq	$0x4b52414d4e534e49, %r11
	jmp	.Lexit

	.section .note.GNU-stack, "", @progbits
