// Target names are normalised once, to the lower case PTX's `.target` uses, before they
// reach LLVM and the PTX: `--arch SM_100A` (and a kernel attribute spelled so) compile for
// sm_100a. A CTA-pair kernel used to abort LLVM ("Cannot select ... cluster.ctarank") when
// the original spelling reached the NVPTX backend.
// REQUIRES: ptxas
// RUN: tcgen05-lower %examples/../lit_tests/forms/cta-group-2.mlir --arch SM_100A -o %t.ptx
// RUN: FileCheck %s --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK: .target sm_100a
// CHECK: .reqnctapercluster 2, 1, 1
