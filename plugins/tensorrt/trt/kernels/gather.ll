; gather.ll: the tensorrt plugin's gather kernel in LLVM IR, compiled to
; gather.ptx by `make tensorrt-ptx` (llc's NVPTX backend). The plugin loads
; the PTX text with the CUDA driver API at run time, so no CUDA compiler is
; needed to build or install it.
;
; mlph_gather(dst, srcs, rowBytes): block b copies row b, rowBytes bytes
; from the address srcs[b] to dst + b*rowBytes. Sources are device memory
; or pinned host memory (readable from the device under unified
; addressing); srcs is read by the device too. Rows whose addresses and
; size are multiples of 16 are copied 16 bytes per thread and step, others
; byte by byte. Launch: one block per row, any block size.

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

define void @mlph_gather(i8 addrspace(1)* %dst, i64 addrspace(1)* %srcs, i64 %rowBytes) {
entry:
  %b32 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %tid32 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %nt32 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %b = zext i32 %b32 to i64
  %tid = zext i32 %tid32 to i64
  %nt = zext i32 %nt32 to i64
  %slot = getelementptr i64, i64 addrspace(1)* %srcs, i64 %b
  %srcInt = load i64, i64 addrspace(1)* %slot, align 8
  %src = inttoptr i64 %srcInt to i8 addrspace(1)*
  %rowOff = mul i64 %b, %rowBytes
  %d = getelementptr i8, i8 addrspace(1)* %dst, i64 %rowOff
  %dInt = ptrtoint i8 addrspace(1)* %d to i64
  %or1 = or i64 %srcInt, %dInt
  %or2 = or i64 %or1, %rowBytes
  %low = and i64 %or2, 15
  %aligned = icmp eq i64 %low, 0
  br i1 %aligned, label %vec.check, label %byte.check

vec.check:
  %n16 = lshr i64 %rowBytes, 4
  %src16 = bitcast i8 addrspace(1)* %src to <4 x i32> addrspace(1)*
  %d16 = bitcast i8 addrspace(1)* %d to <4 x i32> addrspace(1)*
  %vany = icmp ult i64 %tid, %n16
  br i1 %vany, label %vec.loop, label %done

vec.loop:
  %vi = phi i64 [ %tid, %vec.check ], [ %vnext, %vec.loop ]
  %vs = getelementptr <4 x i32>, <4 x i32> addrspace(1)* %src16, i64 %vi
  %vv = load <4 x i32>, <4 x i32> addrspace(1)* %vs, align 16
  %vd = getelementptr <4 x i32>, <4 x i32> addrspace(1)* %d16, i64 %vi
  store <4 x i32> %vv, <4 x i32> addrspace(1)* %vd, align 16
  %vnext = add i64 %vi, %nt
  %vmore = icmp ult i64 %vnext, %n16
  br i1 %vmore, label %vec.loop, label %done

byte.check:
  %bany = icmp ult i64 %tid, %rowBytes
  br i1 %bany, label %byte.loop, label %done

byte.loop:
  %bi = phi i64 [ %tid, %byte.check ], [ %bnext, %byte.loop ]
  %bs = getelementptr i8, i8 addrspace(1)* %src, i64 %bi
  %bv = load i8, i8 addrspace(1)* %bs, align 1
  %bd = getelementptr i8, i8 addrspace(1)* %d, i64 %bi
  store i8 %bv, i8 addrspace(1)* %bd, align 1
  %bnext = add i64 %bi, %nt
  %bmore = icmp ult i64 %bnext, %rowBytes
  br i1 %bmore, label %byte.loop, label %done

done:
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{void (i8 addrspace(1)*, i64 addrspace(1)*, i64)* @mlph_gather, !"kernel", i32 1}
