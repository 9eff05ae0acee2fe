/**
 * The sandbox's seccomp filter (bwrap's `--seccomp FD`: a classic BPF program, `struct
 * sock_filter` entries of 8 bytes in the machine's byte order), built here with no library: it
 * refuses the kernel's keyrings (`keyctl`, `add_key`, `request_key`: EPERM), so that a call
 * cannot read or change the session keyring the host was started in, and refuses making a user
 * namespace from inside (`unshare` or `clone` with CLONE_NEWUSER: EPERM; `clone3`, whose flags a
 * filter cannot read: ENOSYS, on which the C libraries fall back to `clone`). A syscall made in an
 * ABI the filter does not know (x32, or an architecture this host does not run) is refused with
 * ENOSYS: the filter fails closed.
 */

/** The syscall numbers the filter judges, for one ABI (`AUDIT_ARCH_*`). */
interface Abi {
  audit: number;
  keyctl: number;
  addKey: number;
  requestKey: number;
  unshare: number;
  clone: number;
  clone3: number;
}

// From the kernel's syscall tables (arch/x86/entry/syscalls, include/uapi/asm-generic/unistd.h, arch/arm/tools/syscall.tbl).
const X86_64: Abi = { audit: 0xc000003e, keyctl: 250, addKey: 248, requestKey: 249, unshare: 272, clone: 56, clone3: 435 };
const I386: Abi = { audit: 0x40000003, keyctl: 288, addKey: 286, requestKey: 287, unshare: 310, clone: 120, clone3: 435 };
const AARCH64: Abi = { audit: 0xc00000b7, keyctl: 219, addKey: 217, requestKey: 218, unshare: 97, clone: 220, clone3: 435 };
const ARM: Abi = { audit: 0x40000028, keyctl: 311, addKey: 309, requestKey: 310, unshare: 337, clone: 120, clone3: 435 };

/** The ABIs a process of this host can call the kernel in: the native one, and the 32-bit one beside it. */
const ABIS: Partial<Record<NodeJS.Architecture, { abis: Abi[]; x32?: boolean }>> = {
  x64: { abis: [X86_64, I386], x32: true },
  arm64: { abis: [AARCH64, ARM] },
};

const CLONE_NEWUSER = 0x10000000;
/** x32 syscalls are x86_64's numbers with this bit set. */
const X32_BIT = 0x40000000;

// BPF opcodes (linux/filter.h) and seccomp's answers (linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
const ALLOW = 0x7fff0000;
const ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;

// Offsets in `struct seccomp_data`: nr, arch, then the instruction pointer and args[6] (64 bits each; the low half first on these little-endian machines).
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

interface Instruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

const op = (code: number, k: number, jt = 0, jf = 0): Instruction => ({ code, jt, jf, k });

/** Why no filter can be made here, or undefined when one can (x86_64 and arm64 Linux). */
export function seccompUnsupported(arch: NodeJS.Architecture = process.arch): string | undefined {
  return ABIS[arch] ? undefined : `the sandbox's seccomp filter knows the syscalls of x86_64 and arm64 only, and this machine is ${arch}`;
}

/** The filter for this host's architecture, as bwrap reads it from `--seccomp FD`. */
export function seccompProgram(arch: NodeJS.Architecture = process.arch): Buffer {
  const host = ABIS[arch];
  if (!host) throw new Error(seccompUnsupported(arch));
  const program: Instruction[] = [op(LD_W_ABS, ARCH)];
  const blocks = host.abis.map((abi, index) => abiBlock(abi, index === 0 && host.x32 === true));
  // Each ABI: "arch is this one? then its block", laid out one after the other; an unknown arch falls through to ENOSYS.
  for (const [index, block] of blocks.entries()) program.push(op(JEQ_K, (host.abis[index] as Abi).audit, 0, block.length), ...block);
  program.push(op(RET_K, ERRNO | ENOSYS));
  return encode(program);
}

/**
 * One ABI's judgement, entered with the arch loaded: the number, then the refusals. Every path
 * ends in a return, so the block's length is the jump over it.
 */
function abiBlock(abi: Abi, x32: boolean): Instruction[] {
  const deny = op(RET_K, ERRNO | EPERM);
  const block: Instruction[] = [op(LD_W_ABS, NR)];
  if (x32) block.push(op(JGE_K, X32_BIT, 0, 1), op(RET_K, ERRNO | ENOSYS));
  // The keyrings: three numbers, each refused.
  for (const nr of [abi.keyctl, abi.addKey, abi.requestKey]) block.push(op(JEQ_K, nr, 0, 1), deny);
  block.push(op(JEQ_K, abi.clone3, 0, 1), op(RET_K, ERRNO | ENOSYS));
  // unshare(flags) and clone(flags, …): refused when the flags ask for a user namespace.
  for (const nr of [abi.unshare, abi.clone]) {
    block.push(op(JEQ_K, nr, 0, 3), op(LD_W_ABS, ARG0_LOW), op(JSET_K, CLONE_NEWUSER, 0, 1), deny);
    // Not asked: back to the number for the next test, or allowed.
    block.push(op(LD_W_ABS, NR));
  }
  block.push(op(RET_K, ALLOW));
  return block;
}

function encode(program: readonly Instruction[]): Buffer {
  const out = Buffer.alloc(program.length * 8);
  for (const [index, { code, jt, jf, k }] of program.entries()) {
    if (jt > 255 || jf > 255) throw new Error("seccomp filter: a jump is too long");
    const at = index * 8;
    out.writeUInt16LE(code, at);
    out.writeUInt8(jt, at + 2);
    out.writeUInt8(jf, at + 3);
    out.writeUInt32LE(k >>> 0, at + 4);
  }
  return out;
}
