#map = affine_map<()[s0, s1, s2] -> (s0 * s2 + s1)>
module attributes {gpu.container_module} {
  memref.global "private" constant @__constant_7xf32 : memref<7xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00]> {alignment = 64 : i64}
  func.func private @mm__niro_device(%arg0: memref<5x3xf32>, %arg1: memref<3x18xf32>, %arg2: memref<5x18xf32>, %arg3: memref<7xf32>, %arg4: memref<5x18xf32>, %arg5: memref<7xf32>) {
    %c32 = arith.constant 32 : index
    %c8 = arith.constant 8 : index
    %c7 = arith.constant 7 : index
    %c3 = arith.constant 3 : index
    %c18 = arith.constant 18 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f32
    %niro_host0 = memref.get_global @__constant_7xf32 : memref<7xf32>
    %0 = gpu.alloc () : memref<7xf32>
    gpu.memcpy %0, %niro_host0 : memref<7xf32>, memref<7xf32>
    %alloc = gpu.alloc () : memref<5x18xf32>
    gpu.launch_func @mm_kernels::@mm_kernel blocks in (%c1, %c1, %c1) threads in (%c32, %c8, %c1)  args(%c8 : index, %c0 : index, %c32 : index, %c1 : index, %c0 : index, %c5 : index, %c18 : index, %cst : f32, %alloc : memref<5x18xf32>)
    gpu.launch_func @mm_kernels::@mm_kernel_0 blocks in (%c1, %c1, %c1) threads in (%c32, %c8, %c1)  args(%c8 : index, %c0 : index, %c32 : index, %c1 : index, %c0 : index, %c5 : index, %c18 : index, %arg0 : memref<5x3xf32>, %arg1 : memref<3x18xf32>, %alloc : memref<5x18xf32>, %c3 : index)
    gpu.launch_func @mm_kernels::@mm_kernel_1 blocks in (%c1, %c1, %c1) threads in (%c32, %c8, %c1)  args(%c8 : index, %c0 : index, %c32 : index, %c1 : index, %c0 : index, %c5 : index, %c18 : index, %alloc : memref<5x18xf32>, %arg2 : memref<5x18xf32>, %arg4 : memref<5x18xf32>)
    gpu.launch_func @mm_kernels::@mm_kernel_2 blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1)  args(%c8 : index, %c0 : index, %c1 : index, %c0 : index, %c7 : index, %arg3 : memref<7xf32>, %0 : memref<7xf32>, %arg5 : memref<7xf32>)
    gpu.dealloc %alloc : memref<5x18xf32>
    gpu.dealloc %0 : memref<7xf32>
    return
  }
  func.func @mm(%arg0: memref<5x3xf32>, %arg1: memref<3x18xf32>, %arg2: memref<5x18xf32>, %arg3: memref<7xf32>, %arg4: memref<5x18xf32>, %arg5: memref<7xf32>) {
    %niro_dev0 = gpu.alloc () : memref<5x3xf32>
    gpu.memcpy %niro_dev0, %arg0 : memref<5x3xf32>, memref<5x3xf32>
    %niro_dev1 = gpu.alloc () : memref<3x18xf32>
    gpu.memcpy %niro_dev1, %arg1 : memref<3x18xf32>, memref<3x18xf32>
    %niro_dev2 = gpu.alloc () : memref<5x18xf32>
    gpu.memcpy %niro_dev2, %arg2 : memref<5x18xf32>, memref<5x18xf32>
    %niro_dev3 = gpu.alloc () : memref<7xf32>
    gpu.memcpy %niro_dev3, %arg3 : memref<7xf32>, memref<7xf32>
    %niro_dev4 = gpu.alloc () : memref<5x18xf32>
    %niro_dev5 = gpu.alloc () : memref<7xf32>
    func.call @mm__niro_device(%niro_dev0, %niro_dev1, %niro_dev2, %niro_dev3, %niro_dev4, %niro_dev5) : (memref<5x3xf32>, memref<3x18xf32>, memref<5x18xf32>, memref<7xf32>, memref<5x18xf32>, memref<7xf32>) -> ()
    gpu.memcpy %arg4, %niro_dev4 : memref<5x18xf32>, memref<5x18xf32>
    gpu.memcpy %arg5, %niro_dev5 : memref<7xf32>, memref<7xf32>
    gpu.dealloc %niro_dev0 : memref<5x3xf32>
    gpu.dealloc %niro_dev1 : memref<3x18xf32>
    gpu.dealloc %niro_dev2 : memref<5x18xf32>
    gpu.dealloc %niro_dev3 : memref<7xf32>
    gpu.dealloc %niro_dev4 : memref<5x18xf32>
    gpu.dealloc %niro_dev5 : memref<7xf32>
    return
  }
  gpu.module @mm_kernels {
    gpu.func @mm_kernel(%arg0: index, %arg1: index, %arg2: index, %arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: f32, %arg8: memref<5x18xf32>) kernel {
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %thread_id_x = gpu.thread_id  x
      %thread_id_y = gpu.thread_id  y
      %0 = affine.apply #map()[%arg0, %arg1, %block_id_y]
      %1 = affine.apply #map()[%arg2, %arg1, %block_id_x]
      %2 = affine.apply #map()[%arg3, %arg4, %thread_id_y]
      %3 = affine.apply #map()[%arg3, %arg4, %thread_id_x]
      %4 = arith.addi %2, %0 : index
      %5 = arith.addi %3, %1 : index
      %6 = arith.muli %2, %arg3 : index
      %7 = arith.addi %6, %0 : index
      %8 = arith.cmpi ult, %7, %arg5 : index
      %9 = arith.muli %3, %arg3 : index
      %10 = arith.addi %9, %1 : index
      %11 = arith.cmpi ult, %10, %arg6 : index
      %12 = arith.andi %8, %11 : i1
      scf.if %12 {
        memref.store %arg7, %arg8[%4, %5] : memref<5x18xf32>
      }
      gpu.return
    }
    gpu.func @mm_kernel_0(%arg0: index, %arg1: index, %arg2: index, %arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: memref<5x3xf32>, %arg8: memref<3x18xf32>, %arg9: memref<5x18xf32>, %arg10: index) kernel {
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %thread_id_x = gpu.thread_id  x
      %thread_id_y = gpu.thread_id  y
      %0 = affine.apply #map()[%arg0, %arg1, %block_id_y]
      %1 = affine.apply #map()[%arg2, %arg1, %block_id_x]
      %2 = affine.apply #map()[%arg3, %arg4, %thread_id_y]
      %3 = affine.apply #map()[%arg3, %arg4, %thread_id_x]
      %4 = arith.addi %2, %0 : index
      %5 = arith.addi %3, %1 : index
      %6 = arith.muli %2, %arg3 : index
      %7 = arith.addi %6, %0 : index
      %8 = arith.cmpi ult, %7, %arg5 : index
      %9 = arith.muli %3, %arg3 : index
      %10 = arith.addi %9, %1 : index
      %11 = arith.cmpi ult, %10, %arg6 : index
      %12 = arith.andi %8, %11 : i1
      scf.if %12 {
        scf.for %arg11 = %arg1 to %arg10 step %arg3 {
          %13 = memref.load %arg7[%4, %arg11] : memref<5x3xf32>
          %14 = memref.load %arg8[%arg11, %5] : memref<3x18xf32>
          %15 = memref.load %arg9[%4, %5] : memref<5x18xf32>
          %16 = arith.mulf %13, %14 : f32
          %17 = arith.addf %15, %16 : f32
          memref.store %17, %arg9[%4, %5] : memref<5x18xf32>
        }
      }
      gpu.return
    }
    gpu.func @mm_kernel_1(%arg0: index, %arg1: index, %arg2: index, %arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: memref<5x18xf32>, %arg8: memref<5x18xf32>, %arg9: memref<5x18xf32>) kernel {
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %thread_id_x = gpu.thread_id  x
      %thread_id_y = gpu.thread_id  y
      %0 = affine.apply #map()[%arg0, %arg1, %block_id_y]
      %1 = affine.apply #map()[%arg2, %arg1, %block_id_x]
      %2 = affine.apply #map()[%arg3, %arg4, %thread_id_y]
      %3 = affine.apply #map()[%arg3, %arg4, %thread_id_x]
      %4 = arith.addi %2, %0 : index
      %5 = arith.addi %3, %1 : index
      %6 = arith.muli %2, %arg3 : index
      %7 = arith.addi %6, %0 : index
      %8 = arith.cmpi ult, %7, %arg5 : index
      %9 = arith.muli %3, %arg3 : index
      %10 = arith.addi %9, %1 : index
      %11 = arith.cmpi ult, %10, %arg6 : index
      %12 = arith.andi %8, %11 : i1
      scf.if %12 {
        %13 = memref.load %arg7[%4, %5] : memref<5x18xf32>
        %14 = memref.load %arg8[%4, %5] : memref<5x18xf32>
        %15 = arith.addf %13, %14 : f32
        memref.store %15, %arg9[%4, %5] : memref<5x18xf32>
      }
      gpu.return
    }
    gpu.func @mm_kernel_2(%arg0: index, %arg1: index, %arg2: index, %arg3: index, %arg4: index, %arg5: memref<7xf32>, %arg6: memref<7xf32>, %arg7: memref<7xf32>) kernel {
      %block_id_x = gpu.block_id  x
      %thread_id_x = gpu.thread_id  x
      %0 = affine.apply #map()[%arg0, %arg1, %block_id_x]
      %1 = affine.apply #map()[%arg2, %arg3, %thread_id_x]
      %2 = arith.addi %1, %0 : index
      %3 = arith.muli %1, %arg2 : index
      %4 = arith.addi %3, %0 : index
      %5 = arith.cmpi ult, %4, %arg4 : index
      scf.if %5 {
        %6 = memref.load %arg5[%2] : memref<7xf32>
        %7 = memref.load %arg6[%2] : memref<7xf32>
        %8 = arith.addf %6, %7 : f32
        memref.store %8, %arg7[%2] : memref<7xf32>
      }
      gpu.return
    }
  }
}

