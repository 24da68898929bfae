#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The driver as a patch series against Linux 7.3: which repository file lands where in
the kernel tree, how, and in which patch (docs/patches.md). scripts/patches.sh runs it.

  patches.py tree REPO DEST PRISTINE  writes the kernel files of the series under DEST,
                                      the Kconfig, Makefile and MAINTAINERS from
                                      PRISTINE's with the driver's entries
  patches.py series REPO              prints the series for scripts/patches.sh: per
                                      patch a `subject`, `file` and `body` lines and
                                      `end`; the cover letter last, without files
  patches.py files REPO               each repository file of the series, its kernel path
  patches.py kconfig REPO             the MMC_MTK_RUST entry the series adds
  patches.py maintainers              the MAINTAINERS entry the series adds
  patches.py codespell DICT PATCH...  checkpatch.pl --codespell's findings, fast

The file set is not listed by hand: it is every file the driver crate reads in a
production build, found by following its `mod` declarations from the crate root, so a
module added to the tree joins the series and a file the build no longer reads leaves
it. A patch whose files do not cover that set exactly, or overlap, is an error.
"""

import os
import re
import sys
import textwrap

DRIVER = "drivers/mmc/host/mtk_sd_rust"
CRATE_ROOT = f"{DRIVER}/mtk_sd_rust.rs"
# The no_std crates, each compiled into the driver crate as a module, in the kernel
# tree as a folder of the driver holding what is the crate's src/ in this repository.
CRATES = ["registers", "mmc_request", "cqhci", "hsq", "msdc", "slot"]
# Options of the test kernels only (KUnit suites, the simulated board, the kernel's C
# engines in the driver's place). The series does not define them: a module or `use`
# under one of them leaves the series, and the files only they reach stay out.
TEST_CFG = re.compile(r"CONFIG_MMC_MTK_RUST_(KUNIT_TEST|SIM\w*|C_ENGINES)\b")
# A cfg attribute that holds exactly when a test kernel option is off: always true in
# the series, so the item stays and the attribute goes.
NOT_TEST_CFG = re.compile(r"^#\[cfg\(not\(CONFIG_MMC_MTK_RUST_(KUNIT_TEST|SIM\w*|C_ENGINES)\)\)\]$")
# Modules the kernel build never compiles: host-only code.
HOST_CFG = re.compile(r"cfg\((test|not\(CONFIG_RUST\))\)")

MOD_ITEM = re.compile(r"^\s*(pub(\([a-z]+\))?\s+)?mod\s+(\w+);\s*$")
USE_ITEM = re.compile(r"^\s*(pub(\([a-z]+\))?\s+)?use\s")
PATH_ATTR = re.compile(r'^\s*#\[path = "([^"]+)"\]\s*$')

# The series: (subject, files, body). Files are kernel paths or folders; each file of
# the tree goes to exactly one patch, the first whose entry names it or a folder above
# it. The MMC abstraction's mod.rs comes last of its files, so that no prefix of the
# series declares a module whose file is missing.
SERIES = [
    ("mmc: mtk-sd-rust: add a typed register layer",
     [f"{DRIVER}/registers"],
     """Add the register layer the Rust MediaTek MSDC driver and its engines are
built on: one type per hardware register, its window carried by the type,
HI:LO fields with getters and with_* setters, and descriptor words
declared the same way without a location. One access trait, Io, reads, writes,
updates and polls; an implementation serves only the windows it names, so an
access through the wrong window does not compile.

The layer is shaped like the kernel's own register! macro; it is a folder of
the driver rather than a use of kernel::io::register! because the same
source is also built on the host, where the engines are tested against
hardware models without a kernel.

It is not compiled until the driver's crate root includes it."""),
    ("mmc: mtk-sd-rust: add MMC request types for the engines",
     [f"{DRIVER}/mmc_request"],
     """Add the request as the engines see it: command, data, scatter-gather
segments and the result, with the MMC core's flags, timings and opcodes as
constants. The MMC abstraction checks at build time that each constant
equals the kernel's.

It is not compiled until the driver's crate root includes it."""),
    ("rust: mmc: add MMC core bindings",
     ["rust/kernel/mmc/bindings_helper.h", "rust/kernel/mmc/bindings.rs"],
     """Linux 7.3's kernel crate has no MMC bindings. Add the header the driver's
build runs bindgen over, and the module that includes the generated
bindings from the driver's object folder.

The abstraction is compiled into the driver's crate for now, from where it
would live as part of the kernel crate; moving it into the kernel crate
(and its bindings into rust/bindings) is left for when a second MMC host
driver in Rust needs it."""),
    ("rust: mmc: add request abstraction",
     ["rust/kernel/mmc/request.rs"],
     """Wrap struct mmc_request for host drivers: a request borrowed from the MMC
core, its command, data and scatter-gather list, its DMA mapping
(pre_req/post_req), and completion back to the core. The engines' view of
a request (mmc_request's types) is built from it."""),
    ("rust: mmc: add host abstractions",
     ["rust/kernel/mmc/host.rs", "rust/kernel/mmc/ios.rs", "rust/kernel/mmc/ops.rs"],
     """Add the MMC host: allocation and registration of struct mmc_host with the
settings a host driver gives (capabilities, voltages, transfer limits,
regulators), struct mmc_ios as read-only bus settings, and HostOps, a vtable
trait for struct mmc_host_ops (request, set_ios, card detect and
write protect, signal voltage switch, tuning, HS400 and enhanced strobe
hooks, card reset and SDIO interrupts)."""),
    ("rust: mmc: add command queue engine abstraction",
     ["rust/kernel/mmc/cqe.rs"],
     """Add a trait for struct mmc_cqe_ops, so that a Rust host driver can run a
command queue engine (CQHCI or a software queue) for the MMC core: enable,
disable, request, wait for idle, time-out, recovery and off."""),
    ("rust: mmc: add DMA, pin control, reset and runtime PM helpers",
     ["rust/kernel/mmc/dma.rs", "rust/kernel/mmc/pins.rs", "rust/kernel/mmc/reset.rs",
      "rust/kernel/mmc/pm.rs", "rust/kernel/mmc/module_dir.rs", "rust/kernel/mmc/mod.rs"],
     """Add what an MMC host driver needs beside the MMC core and 7.3's kernel
crate does not provide: coherent descriptor memory and the DMA mask,
pinctrl states, an optional reset line, runtime PM and system sleep
callbacks for a platform driver with a dedicated wake-up interrupt, and a
module-wide debugfs folder. mod.rs declares the modules and the host
capability constants, and checks the request types' constants against the
headers."""),
    ("mmc: mtk-sd-rust: add CQHCI command queue engine",
     [f"{DRIVER}/cqhci"],
     """Add an eMMC 5.1 command queue engine (CQHCI, JESD84-B51) as a no_std,
allocation-free state machine: it computes the task and transfer
descriptors and the register values, and leaves locking, DMA memory and
register access to its caller. It implements the MMC core's mmc_cqe_ops
contract, as drivers/mmc/host/cqhci-core.c does, with vendor hooks for the
host. Nothing in it is MSDC specific."""),
    ("mmc: mtk-sd-rust: add host software queue engine",
     [f"{DRIVER}/hsq"],
     """Add a host software queue for hosts without a command queue engine, the
counterpart of drivers/mmc/host/mmc_hsq.c: up to 64 outstanding requests,
issued one at a time in arrival order, the next dispatched from the
completion of the previous one. It is no_std, allocation-free and without
unsafe code."""),
    ("mmc: mtk-sd-rust: add MSDC controller logic",
     [f"{DRIVER}/msdc"],
     """Add the hardware-independent logic of the MediaTek MSDC: its registers and
per-SoC data, clock and timing settings, DMA descriptors, the request
engine for one request at a time, error decoding and recovery, tuning
(HS200, HS400 with strobe tuning, SDR104, SDR50) and the MSDC side of the
CQHCI engine. The register use follows drivers/mmc/host/mtk-sd.c."""),
    ("mmc: mtk-sd-rust: add slot logic",
     [f"{DRIVER}/slot"],
     """Add what the driver decides under its slot lock, over a trait for the
kernel's services: a request of the MMC core started on the controller or
refused, completions, the host software queue in the slot with its busy
retry, recovery, and the request watchdog."""),
    ("mmc: mtk-sd-rust: add MediaTek MSDC host driver",
     [DRIVER],
     """Add a Rust driver for the MediaTek MSDC eMMC/SD/SDIO host controller. It
matches the compatibles of drivers/mmc/host/mtk-sd.c and reads the same
device tree properties; per slot it runs the CQHCI engine
(supports-cqe), the host software queue (no-sdio) or one request at a
time. The crate root includes the register layer, the request types, the
engines, the MSDC logic, the slot logic and the MMC abstraction as its
modules.

The driver is the kernel glue only: the platform driver, clocks,
regulators, pins, interrupts, DMA memory, runtime PM and debugfs; every
register value comes from the no_std modules. Its Kbuild generates the
MMC bindings with bindgen and builds the crate with -Dwarnings.

It is not built until the next patch adds its Kconfig and Makefile
entries."""),
    ("mmc: mtk-sd-rust: add Kconfig and Makefile entries",
     ["drivers/mmc/host/Kconfig", "drivers/mmc/host/Makefile"],
     """Add MMC_MTK_RUST, the Rust reference driver for the MediaTek MSDC, beside
MMC_MTK. Both may be built, as modules or built in: they match the same
compatibles and a controller goes to the driver registered first (the C
driver when both are built in, as it links first) or to the one its
driver_override names (mtk-msdc or mtk_sd_rust)."""),
    ("MAINTAINERS: add the Rust MediaTek MMC/SD/SDIO driver",
     ["MAINTAINERS"],
     """Add an entry for the Rust MediaTek MSDC driver and the MMC abstraction it
carries, beside the C driver's, named as the other Rust reference drivers'
entries are. The MMC and Rust for Linux lists get its patches."""),
]

# The files of the 7.3 tree the series changes (the rest it adds).
PRISTINE = ("drivers/mmc/host/Kconfig", "drivers/mmc/host/Makefile", "MAINTAINERS")
# The MAINTAINERS entry, after the C driver's; the maintainer is the patches' author.
MAINTAINERS_AFTER = "MEDIATEK MMC/SD/SDIO DRIVER"
DEFAULT_IDENTITY = "mtk-sd-rust developers <mtk-sd-rust@example.invalid>"

COVER_SUBJECT = "mmc: add a Rust driver for the MediaTek MSDC host controller"
COVER_BODY = """This series adds mtk-sd-rust, a Rust driver for the MediaTek MSDC
eMMC/SD/SDIO host controller (Chromebooks' MT8183, MT8186, MT8192, MT8195
and their successors), as a Rust reference driver beside mtk-sd.c, with
the MMC abstractions it needs and two controller-independent engines:
CQHCI, the eMMC 5.1 command queue, and a host software queue.

Layout: rust/kernel/mmc/ is the MMC abstraction, the only code with raw
FFI to the MMC core. The no_std modules under drivers/mmc/host/mtk_sd_rust/
(registers, mmc_request, cqhci, hsq, msdc, slot) compute every register
value, descriptor and queueing decision without touching hardware; the
driver's crate root includes them as modules. The same sources are built
on the host, where they are tested against hardware models.

Known limits of this posting:
- The MMC abstraction is compiled into the driver's crate, with its own
  bindgen run, not yet into the kernel crate.
- The sources still carry hooks for the out-of-tree test kernels (cfg on
  CONFIG_MMC_MTK_RUST_KUNIT_TEST, _SIM and _C_ENGINES, options this series
  does not define, so they compile to nothing); the KUnit suites need the
  hardware models and are not part of this series.
- Not run on MediaTek hardware.

Testing (no hardware): a simulated board of six MSDC controllers with
eMMC 5.1, SD and SDIO cards, modelled at register level, built into QEMU
test kernels (x86_64, and arm64 on two vCPUs, TCG) from the same sources
with the test-only options on. fio writes and verifies every block on
every disk in the three queue modes; tuning up to HS400 with enhanced
strobe; runtime PM and system sleep; faults injected under load (CRC
errors, time-outs, lost interrupts, CQHCI task errors, card removal);
unbind/bind and module reload under load; KUnit suites of the engines
against the models. The series is generated from that tree and checked
by applying it with git am to Linux 7.3.4 (the result must be the tested
sources, test-only modules left out), checkpatch.pl with the codespell
dictionary, and rustfmt; the project's patches-check builds each prefix
for arm64 with CLIPPY=1."""


def reflow(text, width=72):
    """A commit message's paragraphs and "- " list items refilled to `width` columns."""
    out = []
    for paragraph in text.split("\n\n"):
        chunks, current = [], []
        for line in paragraph.split("\n"):
            if line.startswith("- ") and current:
                chunks.append(current)
                current = []
            current.append(line.strip())
        chunks.append(current)
        lines = []
        for chunk in chunks:
            item = chunk[0].startswith("- ")
            lines += textwrap.wrap(" ".join(chunk), width, break_long_words=False,
                                   break_on_hyphens=False,
                                   subsequent_indent="  " if item else "")
        out.append("\n".join(lines))
    return "\n\n".join(out)


def die(message):
    sys.exit(f"patches.py: {message}")


def kernel_path(repo_path):
    """The kernel tree path of a repository file (None if it has none)."""
    for crate in CRATES:
        if repo_path.startswith(f"{crate}/src/"):
            return f"{DRIVER}/{crate}/{repo_path[len(crate) + 5:]}"
    if repo_path.startswith(f"{DRIVER}/") or repo_path.startswith("rust/kernel/mmc/"):
        return repo_path
    return None


def repo_path_of(kpath):
    """The repository file of a kernel path of the series."""
    for crate in CRATES:
        if kpath.startswith(f"{DRIVER}/{crate}/"):
            return f"{crate}/src/{kpath[len(DRIVER) + len(crate) + 2:]}"
    return kpath


def crate_path_rewrite(line):
    """A crate root's #[path] to a no_std crate, rewritten to the crate's kernel folder."""
    m = PATH_ATTR.match(line)
    if not m:
        return line
    target = m.group(1)
    for crate in CRATES:
        if target == f"../../../../{crate}/src/lib.rs":
            return line.replace(target, f"{crate}/lib.rs")
    return line


def items(lines):
    """Yields (first, last, kind, name, attrs) for each out-of-line `mod` and each `use`
    item: lines[first..=last] hold the item with the comments, doc comments and
    attributes directly above it."""
    i = 0
    while i < len(lines):
        line = lines[i]
        mod = MOD_ITEM.match(line)
        if mod or USE_ITEM.match(line):
            last = i
            if not mod:
                while not lines[last].rstrip().endswith(";"):
                    last += 1
            first = i
            while first > 0 and re.match(r"^\s*(#\[|//)", lines[first - 1]) \
                    and not lines[first - 1].lstrip().startswith("//!"):
                first -= 1
            attrs = [l.strip() for l in lines[first:i] if l.lstrip().startswith("#[")]
            yield first, last, "mod" if mod else "use", mod.group(3) if mod else None, attrs
            i = last + 1
        else:
            i += 1


def test_only(attrs, where):
    """Whether an item under `attrs` exists only in test kernels: a cfg on a test kernel
    option (on, not `not(...)`). Any other cfg naming one is an error: the series could
    not tell whether the item is compiled."""
    test_only = False
    for a in attrs:
        if not a.startswith("#[cfg") or not TEST_CFG.search(a) or NOT_TEST_CFG.match(a):
            continue
        if not re.match(r"^#\[cfg\(CONFIG_\w+\)\]$", a):
            die(f"{where}: {a}: only cfg(OPTION) and cfg(not(OPTION)) of a test option "
                "are mapped")
        test_only = True
    return test_only


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def series_text(repo, repo_path):
    """The file's text in the series: the repository's, without the modules and `use`
    items of the test kernels' options, and (in the crate root) with the crates' #[path]
    aimed at their kernel folders. Only deletions and those #[path] lines differ."""
    text = read(os.path.join(repo, repo_path))
    if not repo_path.endswith(".rs"):
        return text
    lines = text.split("\n")
    drop = set()
    for first, last, _kind, _name, attrs in items(lines):
        if not test_only(attrs, repo_path):
            # A cfg(not(test option)) holds in the series: the item stays, without it.
            drop.update(n for n in range(first, last + 1)
                        if NOT_TEST_CFG.match(lines[n].strip()))
            continue
        drop.update(range(first, last + 1))
        # A blank line on both sides of a dropped item: keep one.
        after = last + 1
        while after in drop:
            after += 1
        if first > 0 and lines[first - 1] == "" and after < len(lines) and lines[after] == "":
            drop.add(after)
    out = []
    for n, line in enumerate(lines):
        if n in drop:
            continue
        out.append(crate_path_rewrite(line) if repo_path == CRATE_ROOT else line)
    # Two blank lines left where dropped items met: keep one.
    collapsed = []
    for line in out:
        if line == "" and collapsed and collapsed[-1] == "" and len(collapsed) > 1:
            continue
        collapsed.append(line)
    return "\n".join(collapsed)


def module_files(repo, repo_path, seen):
    """Every file the production build reads from `repo_path` on: its out-of-line modules,
    those under a test kernel option or host-only cfg excepted."""
    if repo_path in seen:
        return
    seen.add(repo_path)
    lines = read(os.path.join(repo, repo_path)).split("\n")
    folder = os.path.dirname(repo_path)
    name = os.path.basename(repo_path)
    # A file named by #[path], mod.rs or lib.rs owns its folder; foo.rs owns foo/.
    owned = folder if name in ("mod.rs", "lib.rs") or repo_path == CRATE_ROOT \
        else os.path.join(folder, name[:-3])
    for _first, _last, kind, mod_name, attrs in items(lines):
        if kind != "mod":
            continue
        if test_only(attrs, repo_path) or any(a.startswith("#[cfg") and HOST_CFG.search(a)
                                              for a in attrs):
            continue
        path_attr = [PATH_ATTR.match(a).group(1) for a in attrs if PATH_ATTR.match(a)]
        if path_attr:
            target = os.path.normpath(os.path.join(folder, path_attr[0]))
        else:
            target = os.path.join(owned, f"{mod_name}.rs")
            if not os.path.exists(os.path.join(repo, target)):
                target = os.path.join(owned, mod_name, "mod.rs")
        if not os.path.exists(os.path.join(repo, target)):
            die(f"{repo_path}: module {mod_name}: no file {target}")
        module_files(repo, target, seen)


def tree(repo):
    """{kernel path: text} for every file the series adds (not the Kconfig, Makefile and
    MAINTAINERS entries, which patch existing files)."""
    seen = set()
    module_files(repo, CRATE_ROOT, seen)
    files = {}
    for repo_path in sorted(seen | {f"{DRIVER}/Kbuild", "rust/kernel/mmc/bindings_helper.h"}):
        kpath = kernel_path(repo_path)
        if kpath is None:
            die(f"the production build reads {repo_path}, which has no place in the series")
        files[kpath] = series_text(repo, repo_path)
    return files


def kconfig_entry(repo):
    """The MMC_MTK_RUST entry of the repository's Kconfig, as drivers/mmc/host/Kconfig
    gets it: up to the next entry."""
    text = read(os.path.join(repo, "Kconfig"))
    m = re.search(r"^config MMC_MTK_RUST\n.*?\n\n(?=config |\Z)", text, re.S | re.M)
    if not m:
        die("no MMC_MTK_RUST entry in Kconfig")
    return m.group(0)


def maintainers_entry():
    """The driver's MAINTAINERS entry; PATCHES_IDENTITY (set by scripts/patches.sh) is
    its maintainer."""
    who = os.environ.get("PATCHES_IDENTITY") or DEFAULT_IDENTITY
    return (f"{MAINTAINERS_AFTER} [RUST]\n"
            f"M:\t{who}\n"
            "L:\tlinux-mmc@vger.kernel.org\n"
            "L:\trust-for-linux@vger.kernel.org\n"
            "S:\tMaintained\n"
            "F:\tdrivers/mmc/host/mtk_sd_rust/\n"
            "F:\trust/kernel/mmc/\n\n")


def patch_kbuild_files(repo, ksrc_files):
    """drivers/mmc/host/{Kconfig,Makefile} with the driver's entries, after MMC_MTK's,
    and MAINTAINERS with its entry after the C driver's."""
    kconfig = ksrc_files["drivers/mmc/host/Kconfig"]
    m = re.search(r"^config MMC_MTK\n.*?\n\n", kconfig, re.S | re.M)
    if not m:
        die("no MMC_MTK entry in drivers/mmc/host/Kconfig")
    kconfig = kconfig[:m.end()] + kconfig_entry(repo) + kconfig[m.end():]
    makefile = ksrc_files["drivers/mmc/host/Makefile"]
    anchor = "obj-$(CONFIG_MMC_MTK)\t\t+= mtk-sd.o\n"
    if anchor not in makefile:
        die("no MMC_MTK line in drivers/mmc/host/Makefile")
    makefile = makefile.replace(anchor, anchor + "obj-$(CONFIG_MMC_MTK_RUST)\t+= mtk_sd_rust/\n")
    maintainers = ksrc_files["MAINTAINERS"]
    m = re.search(rf"^{re.escape(MAINTAINERS_AFTER)}\n.*?\n\n", maintainers, re.S | re.M)
    if not m:
        die(f"no {MAINTAINERS_AFTER} entry in MAINTAINERS")
    maintainers = maintainers[:m.end()] + maintainers_entry() + maintainers[m.end():]
    return {"drivers/mmc/host/Kconfig": kconfig, "drivers/mmc/host/Makefile": makefile,
            "MAINTAINERS": maintainers}


def assign(files):
    """The patch index of each file: the first series entry naming it or a folder above."""
    owner = {}
    for path in files:
        for n, (_subject, entries, _body) in enumerate(SERIES):
            if any(path == e or path.startswith(e + "/") for e in entries):
                owner[path] = n
                break
        else:
            die(f"{path} is in no patch of the series")
    for n, (subject, entries, _body) in enumerate(SERIES):
        for e in entries:
            if not any(p == e or p.startswith(e + "/") for p in files):
                die(f"patch {n + 1} ({subject}): {e} names no file of the series")
    return owner


def codespell(dictionary, patches):
    """checkpatch.pl --codespell's check, as checkpatch does it (the dictionary's entries
    without ", disabled", a whole token of [\\w'`-] characters matched without case, on
    the commit message and every added line), at a fraction of its time: checkpatch
    matches one alternation of every entry against each line. Prints checkpatch's
    warning per finding; returns how many."""
    fixes = {}
    with open(dictionary, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or re.search(r", disabled", line, re.I):
                continue
            suspect, _, fix = re.sub(r",.*$", "", line).partition("->")
            fixes.setdefault(suspect.lower(), fix)
    token = re.compile(r"[\w\-'`]+")
    found = 0
    for patch in patches:
        in_log, path, number = True, "", 0
        for text in read(patch).split("\n"):
            if in_log:
                if text == "---":
                    in_log = False
                    continue
                if not text or text.startswith(("Subject:", " ")) or ":" not in text[:20]:
                    checked = text
                else:
                    continue
            elif text.startswith("+++ b/"):
                path = text[6:]
                continue
            elif text.startswith("@@"):
                number = int(re.search(r"\+(\d+)", text).group(1)) - 1
                continue
            elif text.startswith("+"):
                checked = text[1:]
            else:
                if not text.startswith("-"):
                    number += 1
                continue
            if not in_log:
                number += 1
            for word in token.findall(checked):
                fix = fixes.get(word.lower())
                if fix is not None:
                    where = f"{path}:{number}" if not in_log else "commit message"
                    print(f"{os.path.basename(patch)}: {where}: WARNING: '{word}' may be "
                          f"misspelled - perhaps '{fix}'?")
                    found += 1
    return found


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "tree":
        repo, dest, ksrc = sys.argv[2], sys.argv[3], sys.argv[4]
        files = tree(repo)
        pristine = {p: read(os.path.join(ksrc, p)) for p in PRISTINE}
        files.update(patch_kbuild_files(repo, pristine))
        assign(files)
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(dest, path)), exist_ok=True)
            with open(os.path.join(dest, path), "w", encoding="utf-8") as f:
                f.write(text)
    elif len(sys.argv) == 3 and sys.argv[1] == "series":
        files = tree(sys.argv[2])
        files.update({p: "" for p in PRISTINE})
        owner = assign(files)
        for n, (subject, _entries, body) in enumerate(SERIES):
            print(f"subject {subject}")
            for path in sorted(p for p, o in owner.items() if o == n):
                print(f"file {path}")
            for line in reflow(body).split("\n"):
                print(f"body {line}")
            print("end")
        print(f"subject {COVER_SUBJECT}")
        for line in reflow(COVER_BODY).split("\n"):
            print(f"body {line}")
        print("end")
    elif len(sys.argv) == 3 and sys.argv[1] == "files":
        # Each repository file of the series and its kernel path.
        repo = sys.argv[2]
        for kpath in sorted(tree(repo)):
            print(f"{repo_path_of(kpath)} {kpath}")
    elif len(sys.argv) == 3 and sys.argv[1] == "kconfig":
        print(kconfig_entry(sys.argv[2]), end="")
    elif len(sys.argv) == 2 and sys.argv[1] == "maintainers":
        print(maintainers_entry(), end="")
    elif len(sys.argv) >= 3 and sys.argv[1] == "codespell":
        codespell(sys.argv[2], sys.argv[3:])
    else:
        die("usage: patches.py tree REPO DEST PRISTINE | series REPO | files REPO | "
            "kconfig REPO | maintainers | codespell DICT PATCH...")


if __name__ == "__main__":
    main()
