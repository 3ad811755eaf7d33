#map = affine_map<()[s0] -> (s0 * 3)>
module attributes {gpu.container_module} {
  memref.global "private" constant @__constant_7xf32 : memref<7xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00]> {alignment = 64 : i64}
  func.func private @mm__niro_device(%arg0: memref<5x3xf32>, %arg1: memref<3x18xf32>, %arg2: memref<5x18xf32>, %arg3: memref<7xf32>, %arg4: memref<5x18xf32>, %arg5: memref<7xf32>) {
    %c256 = arith.constant 256 : index
    %c32 = arith.constant 32 : index
    %c8 = arith.constant 8 : index
    %c1 = arith.constant 1 : index
    %niro_host0 = memref.get_global @__constant_7xf32 : memref<7xf32>
    %0 = gpu.alloc () : memref<7xf32>
    gpu.memcpy %0, %niro_host0 : memref<7xf32>, memref<7xf32>
    %alloc = gpu.alloc () : memref<5x18xf32>
    gpu.launch_func @mm_kernels::@mm_kernel blocks in (%c1, %c1, %c1) threads in (%c32, %c8, %c1)  args(%alloc : memref<5x18xf32>)
    gpu.launch_func @mm_kernels::@mm_kernel_0 blocks in (%c1, %c1, %c1) threads in (%c32, %c8, %c1)  args(%arg0 : memref<5x3xf32>, %arg1 : memref<3x18xf32>, %alloc : memref<5x18xf32>)
    gpu.launch_func @mm_kernels::@mm_kernel_1 blocks in (%c1, %c1, %c1) threads in (%c32, %c8, %c1)  args(%alloc : memref<5x18xf32>, %arg2 : memref<5x18xf32>, %arg4 : memref<5x18xf32>)
    gpu.launch_func @mm_kernels::@mm_kernel_2 blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1)  args(%arg3 : memref<7xf32>, %0 : memref<7xf32>, %arg5 : memref<7xf32>)
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
    gpu.func @mm_kernel(%arg0: memref<5x18xf32>) kernel {
      %cst = arith.constant 0.000000e+00 : f32
      %c18 = arith.constant 18 : index
      %c32 = arith.constant 32 : index
      %c5 = arith.constant 5 : index
      %c8 = arith.constant 8 : index
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %thread_id_x = gpu.thread_id  x
      %thread_id_y = gpu.thread_id  y
      %0 = arith.muli %block_id_y, %c8 : index
      %1 = arith.addi %0, %thread_id_y : index
      %2 = arith.cmpi ult, %1, %c5 : index
      %3 = arith.muli %block_id_x, %c32 : index
      %4 = arith.addi %3, %thread_id_x : index
      %5 = arith.cmpi ult, %4, %c18 : index
      %6 = arith.andi %2, %5 : i1
      scf.if %6 {
        memref.store %cst, %arg0[%1, %4] : memref<5x18xf32>
      }
      gpu.return
    }
    gpu.func @mm_kernel_0(%arg0: memref<5x3xf32>, %arg1: memref<3x18xf32>, %arg2: memref<5x18xf32>) kernel {
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c6 = arith.constant 6 : index
      %c32 = arith.constant 32 : index
      %c5 = arith.constant 5 : index
      %c8 = arith.constant 8 : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %thread_id_x = gpu.thread_id  x
      %thread_id_y = gpu.thread_id  y
      %0 = arith.muli %block_id_y, %c8 : index
      %1 = arith.addi %0, %thread_id_y : index
      %2 = arith.cmpi ult, %1, %c5 : index
      %3 = arith.muli %block_id_x, %c32 : index
      %4 = arith.addi %3, %thread_id_x : index
      %5 = arith.cmpi ult, %4, %c6 : index
      %6 = arith.andi %2, %5 : i1
      scf.if %6 {
        %7 = affine.apply #map()[%4]
        %subview = memref.subview %arg0[%1, 0] [1, 3] [1, 1] : memref<5x3xf32> to memref<1x3xf32, strided<[3, 1], offset: ?>>
        %subview_0 = memref.subview %arg1[0, %7] [3, 3] [1, 1] : memref<3x18xf32> to memref<3x3xf32, strided<[18, 1], offset: ?>>
        %subview_1 = memref.subview %arg2[%1, %7] [1, 3] [1, 1] : memref<5x18xf32> to memref<1x3xf32, strided<[18, 1], offset: ?>>
        %8 = memref.load %subview_1[%c0, %c0] : memref<1x3xf32, strided<[18, 1], offset: ?>>
        %9 = memref.load %subview_1[%c0, %c1] : memref<1x3xf32, strided<[18, 1], offset: ?>>
        %10 = memref.load %subview_1[%c0, %c2] : memref<1x3xf32, strided<[18, 1], offset: ?>>
        %11:3 = scf.for %arg3 = %c0 to %c3 step %c1 iter_args(%arg4 = %8, %arg5 = %9, %arg6 = %10) -> (f32, f32, f32) {
          %12 = memref.load %subview[%c0, %arg3] : memref<1x3xf32, strided<[3, 1], offset: ?>>
          %13 = memref.load %subview_0[%arg3, %c0] : memref<3x3xf32, strided<[18, 1], offset: ?>>
          %14 = arith.mulf %12, %13 : f32
          %15 = arith.addf %arg4, %14 : f32
          %16 = memref.load %subview[%c0, %arg3] : memref<1x3xf32, strided<[3, 1], offset: ?>>
          %17 = memref.load %subview_0[%arg3, %c1] : memref<3x3xf32, strided<[18, 1], offset: ?>>
          %18 = arith.mulf %16, %17 : f32
          %19 = arith.addf %arg5, %18 : f32
          %20 = memref.load %subview[%c0, %arg3] : memref<1x3xf32, strided<[3, 1], offset: ?>>
          %21 = memref.load %subview_0[%arg3, %c2] : memref<3x3xf32, strided<[18, 1], offset: ?>>
          %22 = arith.mulf %20, %21 : f32
          %23 = arith.addf %arg6, %22 : f32
          scf.yield %15, %19, %23 : f32, f32, f32
        }
        memref.store %11#0, %subview_1[%c0, %c0] : memref<1x3xf32, strided<[18, 1], offset: ?>>
        memref.store %11#1, %subview_1[%c0, %c1] : memref<1x3xf32, strided<[18, 1], offset: ?>>
        memref.store %11#2, %subview_1[%c0, %c2] : memref<1x3xf32, strided<[18, 1], offset: ?>>
      }
      gpu.return
    }
    gpu.func @mm_kernel_1(%arg0: memref<5x18xf32>, %arg1: memref<5x18xf32>, %arg2: memref<5x18xf32>) kernel {
      %c18 = arith.constant 18 : index
      %c32 = arith.constant 32 : index
      %c5 = arith.constant 5 : index
      %c8 = arith.constant 8 : index
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %thread_id_x = gpu.thread_id  x
      %thread_id_y = gpu.thread_id  y
      %0 = arith.muli %block_id_y, %c8 : index
      %1 = arith.addi %0, %thread_id_y : index
      %2 = arith.cmpi ult, %1, %c5 : index
      %3 = arith.muli %block_id_x, %c32 : index
      %4 = arith.addi %3, %thread_id_x : index
      %5 = arith.cmpi ult, %4, %c18 : index
      %6 = arith.andi %2, %5 : i1
      scf.if %6 {
        %7 = memref.load %arg0[%1, %4] : memref<5x18xf32>
        %8 = memref.load %arg1[%1, %4] : memref<5x18xf32>
        %9 = arith.addf %7, %8 : f32
        memref.store %9, %arg2[%1, %4] : memref<5x18xf32>
      }
      gpu.return
    }
    gpu.func @mm_kernel_2(%arg0: memref<7xf32>, %arg1: memref<7xf32>, %arg2: memref<7xf32>) kernel {
      %c7 = arith.constant 7 : index
      %c256 = arith.constant 256 : index
      %block_id_x = gpu.block_id  x
      %thread_id_x = gpu.thread_id  x
      %0 = arith.muli %block_id_x, %c256 : index
      %1 = arith.addi %0, %thread_id_x : index
      %2 = arith.cmpi ult, %1, %c7 : index
      scf.if %2 {
        %3 = memref.load %arg0[%1] : memref<7xf32>
        %4 = memref.load %arg1[%1] : memref<7xf32>
        %5 = arith.addf %3, %4 : f32
        memref.store %5, %arg2[%1] : memref<7xf32>
      }
      gpu.return
    }
  }
}

