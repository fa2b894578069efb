r"""CUDA kernels (numba-cuda) of the GPU solvers: one sweep each, written once for a dense and
once for a CSR row, and the reductions they share.

Every kernel runs with blocks of :data:`TPB` threads that cooperate through shared memory and
``syncthreads`` only (no warp shuffles), so that Numba's CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``) runs them unchanged on a machine without a GPU: the tests do.
A block reduces a row's products in a fixed order (:func:`_block_sum`: a shared-memory tree
in the simulator, a butterfly of warp shuffles on a GPU): the result does not depend on
scheduling. Atomics appear only where the docstring says so; those sums are not
bit-deterministic (their order is the hardware's).

The losses are :mod:`sdca_pegasos.solvers.core.losses`' own functions, compiled for the device from
the same source (:func:`_device_losses`): a loss is never written into a kernel.

Shapes: ``X`` (n, d) row-major, float32/float64, or CSR ``(data, cols, indptr)``; ``y`` (n,)
±1 float64; ``c`` (n,) sample weights float64 (ones when unweighted); ``w`` (d + 1,) float64,
last entry the bias weight (x̃_i = (x_i, B)); ``a`` (n,) float64, :math:`a_i = y_i\alpha_i`
in :math:`[0, c_iU]`.
"""

from __future__ import annotations

import math
import os
import types

from numba import cuda, float64

from sdca_pegasos.solvers.core import losses as _losses

#: Whether the kernels run in Numba's CUDA simulator (one Python thread per GPU thread).
SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")

#: Threads per block: one row's products are spread over them and summed by a tree (4 in the
#: simulator: the same code and tree, eight times fewer Python threads).
TPB = 4 if SIMULATED else 32


def _device_losses():
    """The ``@njit`` loss functions of :mod:`sdca_pegasos.solvers.core.losses`, compiled for the
    device from their own Python source (their calls to each other resolved to the device
    versions)."""
    names = ("value", "dual_term", "dual_target", "gradient", "curvature", "upper_bound")
    names += ("coordinate_step",)
    namespace = dict(vars(_losses))
    out = {}
    for name in names:
        py = getattr(_losses, name).py_func
        clone = types.FunctionType(py.__code__, namespace, name, py.__defaults__)
        out[name] = cuda.jit(device=True)(clone)
    namespace.update(out)
    return types.SimpleNamespace(**out)


_L = _device_losses()
# module globals (a kernel resolves a global function, not a namespace's attribute)
_value = _L.value
_dual_term = _L.dual_term
_dual_target = _L.dual_target
_gradient = _L.gradient
_curvature = _L.curvature
_upper_bound = _L.upper_bound
_coordinate_step = _L.coordinate_step


# ---------------------------------------------------------------------------- row access
@cuda.jit(device=True)
def _tree_sum(red, t, v):
    """Sum of ``v`` over the block's TPB threads by a fixed tree in shared memory; every
    thread gets it (the simulator's reduction: it has no warp shuffles)."""
    red[t] = v
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if t < s:
            red[t] += red[t + s]
        cuda.syncthreads()
        s //= 2
    total = red[0]
    cuda.syncthreads()  # everyone has read red[0] before the next call writes it
    return total


@cuda.jit(device=True)
def _warp_sum(red, t, v):
    """The same sum on a GPU, where a block is one warp (TPB = 32): a butterfly of shuffles
    (fixed pairs: deterministic), no shared memory and no barrier."""
    v += cuda.shfl_xor_sync(0xFFFFFFFF, v, 16)
    v += cuda.shfl_xor_sync(0xFFFFFFFF, v, 8)
    v += cuda.shfl_xor_sync(0xFFFFFFFF, v, 4)
    v += cuda.shfl_xor_sync(0xFFFFFFFF, v, 2)
    v += cuda.shfl_xor_sync(0xFFFFFFFF, v, 1)
    return v


#: A row's products summed over the block: the tree in the simulator, shuffles on a GPU (so
# the simulator's bits equal the NumPy twin's, :func:`sdca_pegasos.solvers.gpu.sdca.cpu_round`; on
# a GPU
#: the same sums are added in another fixed order).
_block_sum = _tree_sum if SIMULATED else _warp_sum


@cuda.jit(device=True)
def _dense_dot(X, _cols, _indptr, i, w, v, sigma, t):
    """This thread's share of x_i·(w + σv) and of Σ|x_ij (w_j + σv_j)| (columns t, t+TPB, ...)."""
    acc = 0.0
    mag = 0.0
    for j in range(t, X.shape[1], TPB):
        p = X[i, j] * (w[j] + sigma * v[j])
        acc += p
        mag += abs(p)
    return acc, mag


@cuda.jit(device=True)
def _csr_dot(data, cols, indptr, i, w, v, sigma, t):
    """:func:`_dense_dot` over the stored entries of CSR row i."""
    acc = 0.0
    mag = 0.0
    for p in range(indptr[i] + t, indptr[i + 1], TPB):
        j = cols[p]
        q = data[p] * (w[j] + sigma * v[j])
        acc += q
        mag += abs(q)
    return acc, mag


@cuda.jit(device=True)
def _dense_axpy(X, _cols, _indptr, i, coef, v, t, atomic):
    """v += coef·x_i (this thread's columns); with atomics when other blocks share v."""
    for j in range(t, X.shape[1], TPB):
        if atomic:
            cuda.atomic.add(v, j, coef * X[i, j])
        else:
            v[j] += coef * X[i, j]


@cuda.jit(device=True)
def _csr_axpy(data, cols, indptr, i, coef, v, t, atomic):
    for p in range(indptr[i] + t, indptr[i + 1], TPB):
        if atomic:
            cuda.atomic.add(v, cols[p], coef * data[p])
        else:
            v[cols[p]] += coef * data[p]


# ---------------------------------------------------------------------------- SDCA round
def _round_kernel(row_dot, row_axpy):
    """The SDCA round over rows read by ``row_dot`` / ``row_axpy`` (dense or CSR: chosen when
    the kernel is built, so the sweep is written once and compiled once per storage).

    Tried on an H100 and not kept, each slower on the CSR round (docs/measurements.md): the
    row's scalars and the next row's index loaded ahead, two warps (two blocks) per CUDA
    block, and one running vector u = w + v read and added in place of w and v."""

    @cuda.jit
    def kernel(R0, R1, R2, y, c, q, a, a_new, w, buf, order, starts, rot, sc, loss, stats):
        k = cuda.blockIdx.x
        t = cuda.threadIdx.x
        red = cuda.shared.array(TPB, float64)
        n_blocks = starts.shape[0] - 1
        if k >= n_blocks:
            return
        scale = sc[0]  # 1/(λn)
        sigma = sc[1]  # σ': the local subproblem's curvature factor
        bias = sc[2]
        slot = k % buf.shape[0]
        v = buf[slot]
        atomic = buf.shape[0] < n_blocks
        # the margin's weight on v: σ' on a block's own v (CoCoA+'s local subproblem); 1 on a
        # shared v, which holds every block's updates (σ' then only damps the curvature, the
        # β of mini-batch SDCA: σ'·v there would count the other blocks' updates σ' times)
        vs = 1.0 if atomic else sigma
        d = w.shape[0] - 1
        lo = starts[k]
        m = starts[k + 1] - lo
        s1 = 0.0
        s2 = 0.0
        s3 = 0.0
        for s in range(m):
            p = s + rot[k]
            if p >= m:
                p -= m
            i = order[lo + p]
            acc, _ = row_dot(R0, R1, R2, i, w, v, vs, t)
            if t == 0 and bias != 0.0:  # read before the tree's barriers: thread 0 writes
                acc += bias * (w[d] + vs * v[d])  # v[d] once the step is known
            z = _block_sum(red, t, acc)
            yi = y[i]
            z *= yi
            ci = c[i]
            ai = a[i]
            g = _gradient(loss, z, ai, ci)
            h = _curvature(loss, sigma * q[i], ci)
            an = _coordinate_step(loss, ai, g, h, ci)
            delta = an - ai
            if delta != 0.0:
                coef = delta * yi * scale
                row_axpy(R0, R1, R2, i, coef, v, t, atomic)
                if t == 0 and bias != 0.0:
                    if atomic:
                        cuda.atomic.add(v, d, coef * bias)
                    else:
                        v[d] += coef * bias
            if t == 0:
                a_new[i] = an
                if ci > 0.0 and loss.kappa != 0.0:
                    kc = loss.kappa / ci
                    s2 += kc * ai * delta
                    s3 += kc * delta * delta
                s1 += delta
            cuda.syncthreads()  # the block's own updates of v are seen by its next margin
        if t == 0:
            stats[k, 0] = s1
            stats[k, 1] = s2
            stats[k, 2] = s3

    return kernel


#: One round of block-local SDCA (CoCoA+ with SDCA as the local solver).
#:
#: ``sdca_round_dense[K, TPB](X, X, X, y, c, q, a, a_new, w, buf, order, starts, rot, sc,
#: loss, stats)`` (CSR: ``data, cols, indptr`` for the first three). Block k sweeps its chunk
#: ``order[starts[k]:starts[k+1]]`` from the offset ``rot[k]``, one sample at a time, taking
#: the exact coordinate step of the local subproblem with curvature factor σ' = ``sc[1]``:
#: margin at w + σ'v (w + v when v is shared), curvature σ'q_i + κ/c_i (``q`` =
#: ‖x̃_i‖²/(λn), ``sc[0]`` = 1/(λn), ``sc[2]`` = B), where v = ``buf[k % nb]`` collects the
#: block's Δa_i y_i x̃_i/(λn). ``a`` is not changed: the new values go to ``a_new`` and the
#: driver combines them by a line search. nb = K (every block its own v): deterministic;
#: nb < K: blocks share a v through atomics (asynchronous SDCA), not bit-deterministic.
#: ``stats[k]`` = (Σδ_i, Σ(κ/c_i)a_iδ_i, Σ(κ/c_i)δ_i²) of the block (δ_i = Δa_i), for the
#: line search.
sdca_round_dense = _round_kernel(_dense_dot, _dense_axpy)
sdca_round_csr = _round_kernel(_csr_dot, _csr_axpy)


# ---------------------------------------------------------------------------- margins
def _margins_kernel(row_dot):
    @cuda.jit
    def kernel(R0, R1, R2, rows, start, count, w, bias, z, mag):
        k = cuda.blockIdx.x
        t = cuda.threadIdx.x
        red = cuda.shared.array(TPB, float64)
        d = w.shape[0] - 1
        for r in range(k, count, cuda.gridDim.x):
            i = rows[start + r]
            acc, m = row_dot(R0, R1, R2, i, w, w, 0.0, t)
            s = _block_sum(red, t, acc)
            mm = _block_sum(red, t, m)
            if t == 0:
                z[r] = s + bias * w[d]
                mag[r] = mm + abs(bias * w[d])

    return kernel


#: ``margins_dense[G, TPB](X, X, X, rows, start, count, w, bias, z, mag)``: z[r] = x̃_i·w and
#: mag[r] = Σ_j |x̃_ij w_j| for i = rows[start + r], r < count (unsigned: no y); one block per
#: row at a time, the row's products summed by a tree. ``margins_csr``: the same on CSR rows.
margins_dense = _margins_kernel(_dense_dot)
margins_csr = _margins_kernel(_csr_dot)


# ---------------------------------------------------------------------------- X^T (coef)
@cuda.jit
def colsum_dense(X, rows, start, count, coef, bias, part, part_mag):
    """Partial sums of Σ_r coef[r]·x̃_i and Σ_r |coef[r]·x̃_i| (i = rows[start + r]) over
    row chunks: block k sums chunk k (``part.shape[0]`` chunks) into ``part[k]`` and
    ``part_mag[k]`` (length d + 1; :func:`sum_rows` adds the chunks, in a fixed order)."""
    k = cuda.blockIdx.x
    t = cuda.threadIdx.x
    n_chunks = part.shape[0]
    if k >= n_chunks:
        return
    per = (count + n_chunks - 1) // n_chunks
    lo = k * per
    hi = min(count, lo + per)
    d = X.shape[1]
    for j in range(t, d + 1, TPB):
        s = 0.0
        m = 0.0
        for r in range(lo, hi):
            x = X[rows[start + r], j] if j < d else bias
            p = coef[r] * x
            s += p
            m += abs(p)
        part[k, j] = s
        part_mag[k, j] = m


@cuda.jit
def scatter_csr(data, cols, indptr, rows, start, count, coef, out, out_mag):
    """out[:d] += Σ_r coef[r]·x_i and out_mag[:d] += Σ_r |coef[r]·x_i| (i = rows[start + r]) by
    atomics: NOT bit-deterministic (the order of the additions is the hardware's). The bias
    entry is left to :func:`sums` (a fixed tree)."""
    for r in range(cuda.grid(1), count, cuda.gridsize(1)):
        i = rows[start + r]
        cr = coef[r]
        if cr == 0.0:
            continue
        for p in range(indptr[i], indptr[i + 1]):
            v = cr * data[p]
            cuda.atomic.add(out, cols[p], v)
            cuda.atomic.add(out_mag, cols[p], abs(v))


@cuda.jit(device=True)
def _store_block_pair(a, b, out):
    """out[k] = (Σ a, Σ b) over the threads of block k (each sum by :func:`_block_sum`)."""
    t = cuda.threadIdx.x
    red = cuda.shared.array(TPB, float64)
    a = _block_sum(red, t, a)
    b = _block_sum(red, t, b)
    if t == 0:
        out[cuda.blockIdx.x, 0] = a
        out[cuda.blockIdx.x, 1] = b


@cuda.jit
def sums(v, count, out):
    """Per-block partial sums out[k] = (Σ v_r, Σ |v_r|) over r < count (grid-stride, tree)."""
    s = 0.0
    m = 0.0
    for r in range(cuda.grid(1), count, cuda.gridsize(1)):
        s += v[r]
        m += abs(v[r])
    _store_block_pair(s, m, out)


@cuda.jit
def sum_rows(part, out):
    """out[j] = Σ_k part[k, j], summed by a fixed tree over the block (deterministic)."""
    j = cuda.blockIdx.x
    t = cuda.threadIdx.x
    red = cuda.shared.array(TPB, float64)
    if j >= part.shape[1]:
        return
    s = 0.0
    for k in range(t, part.shape[0], TPB):
        s += part[k, j]
    s = _block_sum(red, t, s)
    if t == 0:
        out[j] = s


# ---------------------------------------------------------------------------- elementwise
@cuda.jit
def fill(v, value):
    """v[:] = value (a 1-d or flattened view)."""
    for j in range(cuda.grid(1), v.shape[0], cuda.gridsize(1)):
        v[j] = value


@cuda.jit
def axpy(v, step, dv):
    """v += step·dv."""
    for j in range(cuda.grid(1), v.shape[0], cuda.gridsize(1)):
        v[j] += step * dv[j]


@cuda.jit
def combine(a, a_new, step, c, loss):
    """a ← a + step·(a_new − a), in the box [0, c_iU] (step 1: a ← a_new exactly)."""
    for i in range(cuda.grid(1), a.shape[0], cuda.gridsize(1)):
        if step == 1.0:
            a[i] = a_new[i]
        else:
            v = a[i] + step * (a_new[i] - a[i])
            a[i] = min(max(v, 0.0), _upper_bound(loss, c[i]))


@cuda.jit
def dots(u, v, out):
    """Per-block partial sums: out[k, 0] = Σ u_j v_j, out[k, 1] = Σ v_j² over the block's
    grid-stride share (the driver adds the blocks in order)."""
    s_uv = 0.0
    s_vv = 0.0
    for j in range(cuda.grid(1), v.shape[0], cuda.gridsize(1)):
        s_uv += u[j] * v[j]
        s_vv += v[j] * v[j]
    _store_block_pair(s_uv, s_vv, out)


@cuda.jit
def row_sq_norms_dense(X, bias, scale, out):
    """out[i] = scale·(‖x_i‖² + B²)."""
    for i in range(cuda.grid(1), X.shape[0], cuda.gridsize(1)):
        s = 0.0
        for j in range(X.shape[1]):
            x = X[i, j]
            s += x * x
        out[i] = scale * (s + bias * bias)


@cuda.jit
def row_sq_norms_csr(data, indptr, bias, scale, out):
    """:func:`row_sq_norms_dense` on CSR rows."""
    for i in range(cuda.grid(1), indptr.shape[0] - 1, cuda.gridsize(1)):
        s = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            s += data[p] * data[p]
        out[i] = scale * (s + bias * bias)


# ---------------------------------------------------------------------------- certificate
@cuda.jit
def certificate_terms(z, mag, y, c, a, loss, gamma_d, out):
    r"""Per-block partial sums of the certificate's per-sample terms (z: unsigned margins
    x̃_i·w, mag: Σ|x̃_ij w_j|): out[k] = (Σ c_iφ(y_iz_i), Σ c_i·slope_i·δ_i,
    Σ (a_i − κa_i²/(2c_i)), Σ |that|), where δ_i = 2(γ_d·mag_i + 2u|z_i|) bounds the
    margin's rounding error and slope_i the loss's slope within δ_i of it."""
    k = cuda.blockIdx.x
    t = cuda.threadIdx.x
    red = cuda.shared.array(TPB, float64)
    u = 1.1102230246251565e-16
    s_loss = 0.0
    s_err = 0.0
    s_dual = 0.0
    s_dabs = 0.0
    for i in range(cuda.grid(1), z.shape[0], cuda.gridsize(1)):
        zi = y[i] * z[i]
        ci = c[i]
        delta = 2.0 * (gamma_d * mag[i] + 2.0 * u * abs(zi))
        if zi - delta < 1.0 and ci > 0.0:
            phi = _value(loss, zi)
            s_loss += ci * phi
            if loss.upper < 1e308:
                slope = loss.upper
            else:
                slope = (max(0.0, 1.0 - zi) + delta) / loss.kappa
            s_err += ci * (slope * delta + 8.0 * u * phi)
        dt = _dual_term(loss, a[i], ci)
        s_dual += dt
        s_dabs += abs(dt)
    s_loss = _block_sum(red, t, s_loss)
    s_err = _block_sum(red, t, s_err)
    s_dual = _block_sum(red, t, s_dual)
    s_dabs = _block_sum(red, t, s_dabs)
    if t == 0:
        out[k, 0] = s_loss
        out[k, 1] = s_err
        out[k, 2] = s_dual
        out[k, 3] = s_dabs


@cuda.jit
def signed_coef(a, y, scale, out):
    """out[i] = scale·a_i·y_i (the coefficients of w(α) = Σ out_i x̃_i)."""
    for i in range(cuda.grid(1), a.shape[0], cuda.gridsize(1)):
        out[i] = scale * a[i] * y[i]


@cuda.jit
def column_counts(cols, counts):
    """counts[j] += number of stored entries in column j (integer atomics: exact)."""
    for p in range(cuda.grid(1), cols.shape[0], cuda.gridsize(1)):
        cuda.atomic.add(counts, cols[p], 1)


# ---------------------------------------------------------------------------- input checks
#: Columns of :func:`finite_stats`' and :func:`csr_stats`' per-block rows: max |x| over the
#: finite entries, NaN and infinite entries, CSR rows with a bad ``indptr`` pair, stored
#: columns outside [0, n_features), stored columns not above their row's previous one.
STATS = ("max_abs", "nan", "inf", "bad_indptr", "bad_indices", "unsorted")


@cuda.jit(device=True)
def _entry_stats(x, big, nan, inf):
    """One entry into the running (max |x| over finite entries, NaN count, inf count)."""
    if math.isnan(x):
        nan += 1.0
    elif math.isinf(x):
        inf += 1.0
    else:
        big = max(big, float64(abs(x)))
    return big, nan, inf


@cuda.jit(device=True)
def _store_stats(big, nan, inf, bad_ptr, bad_col, unsorted, out):
    """out[k] = the :data:`STATS` of block k's threads: the maximum (thread 0 reads the
    block's values: a maximum is the same in any order) and the counts, summed over the block
    (in float64: exact below 2**53)."""
    t = cuda.threadIdx.x
    red = cuda.shared.array(TPB, float64)
    red[t] = big
    cuda.syncthreads()
    if t == 0:
        for s in range(1, TPB):
            big = max(big, red[s])
    cuda.syncthreads()  # red read before the sums below write it
    nan = _block_sum(red, t, nan)
    inf = _block_sum(red, t, inf)
    bad_ptr = _block_sum(red, t, bad_ptr)
    bad_col = _block_sum(red, t, bad_col)
    unsorted = _block_sum(red, t, unsorted)
    if t == 0:
        k = cuda.blockIdx.x
        out[k, 0] = big
        out[k, 1] = nan
        out[k, 2] = inf
        out[k, 3] = bad_ptr
        out[k, 4] = bad_col
        out[k, 5] = unsorted


@cuda.jit
def finite_stats(v, out):
    """Per-block rows out[k] (:data:`STATS`, shape (grid, 6)) of the 1-d ``v`` (a dense X's
    flat view, or an n-vector): max |v_j| over its finite entries and the counts of NaN and
    infinite ones over the block's grid-stride share; the CSR columns 0."""
    big = 0.0
    nan = 0.0
    inf = 0.0
    for j in range(cuda.grid(1), v.shape[0], cuda.gridsize(1)):
        big, nan, inf = _entry_stats(v[j], big, nan, inf)
    _store_stats(big, nan, inf, 0.0, 0.0, 0.0, out)


@cuda.jit
def csr_stats(data, cols, indptr, n_features, out):
    """:func:`finite_stats` of CSR X's stored entries, with its structure checked row by row
    (grid-stride over rows): a row whose pair is not ``0 <= indptr[i] <= indptr[i + 1] <=
    nnz``, or the first row not starting at 0, or the last not ending at nnz, counts in
    ``bad_indptr`` (its entries are not read); a stored column outside [0, n_features) in
    ``bad_indices``, and one not above its row's previous column (unsorted or duplicated) in
    ``unsorted``. ``len(cols) == len(data) == nnz`` is the caller's to check."""
    nnz = data.shape[0]
    n = indptr.shape[0] - 1
    big = 0.0
    nan = 0.0
    inf = 0.0
    bad_ptr = 0.0
    bad_col = 0.0
    unsorted = 0.0
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        lo = indptr[i]
        hi = indptr[i + 1]
        if lo < 0 or hi < lo or hi > nnz or (i == 0 and lo != 0) or (i == n - 1 and hi != nnz):
            bad_ptr += 1.0
            continue
        for p in range(lo, hi):
            big, nan, inf = _entry_stats(data[p], big, nan, inf)
            j = cols[p]
            if j < 0 or j >= n_features:
                bad_col += 1.0
            if p > lo and j <= cols[p - 1]:
                unsorted += 1.0
    _store_stats(big, nan, inf, bad_ptr, bad_col, unsorted, out)


@cuda.jit
def column_max_abs_dense(X, out):
    """out[j] = max(out[j], max_i |x_ij|) by atomics (a maximum: the same in any order)."""
    d = X.shape[1]
    for k in range(cuda.grid(1), X.shape[0] * d, cuda.gridsize(1)):
        i = k // d
        j = k - i * d
        cuda.atomic.max(out, j, float64(abs(X[i, j])))


@cuda.jit
def column_max_abs_csr(data, cols, out):
    """:func:`column_max_abs_dense` over CSR X's stored entries."""
    for p in range(cuda.grid(1), data.shape[0], cuda.gridsize(1)):
        cuda.atomic.max(out, cols[p], float64(abs(data[p])))


# ---------------------------------------------------------------------------- Pegasos
@cuda.jit
def pegasos_coef(z, rows, start, count, y, c, v_scale, step, loss, coef):
    r"""coef[r] = step·c_i·y_i·a^*(y_i s z_i) for the batch's rows (z: margins of v, s =
    ``v_scale``; :math:`a^* = -\phi'` from :mod:`sdca_pegasos.solvers.core.losses`: 1 below the
    hinge's margin, 0 beyond): the batch's sub-gradient coefficients, scaled by ``step``."""
    for r in range(cuda.grid(1), count, cuda.gridsize(1)):
        i = rows[start + r]
        zi = y[i] * v_scale * z[r]
        coef[r] = step * c[i] * y[i] * _dual_target(loss, zi)


@cuda.jit
def scale_add(v, scale, dv):
    """v ← scale·v + dv (Pegasos' shrink and step; also v ← scale·v with dv = v·0)."""
    for j in range(cuda.grid(1), v.shape[0], cuda.gridsize(1)):
        v[j] = scale * v[j] + dv[j]


@cuda.jit
def rescale(v, scale):
    """v ← scale·v (the projection onto the ball)."""
    for j in range(cuda.grid(1), v.shape[0], cuda.gridsize(1)):
        v[j] *= scale


@cuda.jit
def running_mean(avg, v, rho):
    """avg ← (1 − ρ)·avg + ρ·v (ρ = 1 copies v)."""
    for j in range(cuda.grid(1), v.shape[0], cuda.gridsize(1)):
        if rho == 1.0:
            avg[j] = v[j]
        else:
            avg[j] += rho * (v[j] - avg[j])


# ---------------------------------------------------------------------------- Newton (dense)
#: Rows a block of :func:`newton_pass_dense` takes at a time: their margins, coefficients
#: and curvatures are kept in shared memory while the block adds the tile's outer products.
NEWTON_TILE = 4 if SIMULATED else 32


@cuda.jit(device=True)
def _second_derivative(loss, z):
    r""":math:`\phi''(z)` for unit weight: :math:`1/\kappa` where :math:`0 < 1 - z < \kappa U`,
    else 0 (the one-sided value at the kinks), as
    :meth:`sdca_pegasos.solvers.core.losses.Loss.second_derivatives`; κ > 0 (a smooth loss)."""
    u = 1.0 - z
    if u > 0.0 and u < loss.kappa * loss.upper:
        return 1.0 / loss.kappa
    return 0.0


@cuda.jit
def newton_pass_dense(X, y, c, w, bias, loss, z_out, part_g, part_h):
    r"""One pass over dense X giving the Newton step's data: block k takes the row chunk k
    (``part_g.shape[0]`` equal chunks) a tile of :data:`NEWTON_TILE` rows at a time. For each
    row the block computes the margin :math:`\tilde x_i^\top w` (its threads' products summed
    by :func:`_block_sum`; stored unsigned in ``z_out[i]``), the coefficient
    :math:`c_i y_i a^*(y_i z_i)` (:math:`a^* = -\phi'`) and the curvature
    :math:`c_i\phi''(y_i z_i)`; then, per tile, thread t adds into the block's own rows of the
    outputs (no atomics: deterministic):

    - ``part_g[k, j]`` += Σ_r coef_r·x̃_rj for its columns j = t, t + TPB, ... (length d + 1);
    - ``part_h[k, j·(d+1) + l]`` += Σ_r curv_r·x̃_rj·x̃_rl for its entries p = t, t + TPB, ...
      of the upper triangle l ≥ j of the (d + 1) × (d + 1) matrix (the rest left 0).

    :func:`sum_rows` adds the chunks in a fixed order; the host scales them into
    :math:`g = \lambda w - \frac1n\sum_k` ``part_g[k]`` and
    :math:`H = \lambda I + \frac1n\sum_k` ``part_h[k]`` (mirrored)."""
    k = cuda.blockIdx.x
    t = cuda.threadIdx.x
    red = cuda.shared.array(TPB, float64)
    coef_s = cuda.shared.array(NEWTON_TILE, float64)
    curv_s = cuda.shared.array(NEWTON_TILE, float64)
    chunks = part_g.shape[0]
    if k >= chunks:
        return
    n = X.shape[0]
    d = X.shape[1]
    m = d + 1
    per = (n + chunks - 1) // chunks
    lo = k * per
    hi = min(n, lo + per)
    for j in range(t, m, TPB):
        part_g[k, j] = 0.0
    for p in range(t, m * m, TPB):
        part_h[k, p] = 0.0
    for base in range(lo, hi, NEWTON_TILE):
        cnt = min(NEWTON_TILE, hi - base)
        for r in range(cnt):
            i = base + r
            acc = 0.0
            for j in range(t, d, TPB):
                acc += X[i, j] * w[j]
            z = _block_sum(red, t, acc) + bias * w[d]
            if t == 0:
                z_out[i] = z
                yi = y[i]
                ci = c[i]
                zi = yi * z
                if ci != 0.0:
                    coef_s[r] = ci * yi * _dual_target(loss, zi)
                    curv_s[r] = ci * _second_derivative(loss, zi)
                else:
                    coef_s[r] = 0.0
                    curv_s[r] = 0.0
        cuda.syncthreads()  # the tile's coefficients are seen by every thread
        for j in range(t, m, TPB):
            s = 0.0
            for r in range(cnt):
                x = X[base + r, j] if j < d else bias
                s += coef_s[r] * x
            part_g[k, j] += s
        for p in range(t, m * m, TPB):
            j = p // m
            q = p - j * m
            if q >= j:
                s = 0.0
                for r in range(cnt):
                    h = curv_s[r]
                    if h != 0.0:
                        xj = X[base + r, j] if j < d else bias
                        xq = X[base + r, q] if q < d else bias
                        s += h * xj * xq
                part_h[k, p] += s
        cuda.syncthreads()  # every thread is done with the tile before the next one


@cuda.jit
def newton_slope(z, dz, y, c, step, loss, out):
    r"""Per-block partial sums of the line search along a Newton step s at t = ``step``
    (z: unsigned margins x̃_i·w, dz: x̃_i·s): out[k] = (Σ c_i a^*(u_i)·δ_i,
    Σ c_i φ''(u_i)·δ_i²) with δ_i = y_i dz_i and u_i = y_i z_i + t δ_i; then
    :math:`f'(t) = \lambda(w^\top s + t\|s\|^2) - \frac1n` out[:, 0] summed, and
    :math:`f''(t) = \lambda\|s\|^2 + \frac1n` out[:, 1] summed."""
    s1 = 0.0
    s2 = 0.0
    for i in range(cuda.grid(1), z.shape[0], cuda.gridsize(1)):
        ci = c[i]
        if ci != 0.0:
            yi = y[i]
            di = yi * dz[i]
            u = yi * z[i] + step * di
            s1 += ci * _dual_target(loss, u) * di
            s2 += ci * _second_derivative(loss, u) * di * di
    _store_block_pair(s1, s2, out)


@cuda.jit
def implied_dual(z, y, c, loss, a):
    r"""a_i = c_i a^*(y_i z_i) = -c_i φ'(y_i z_i) (z unsigned margins x̃_i·w): the dual point a
    primal point implies (:func:`sdca_pegasos.solvers.core.objectives.implied_dual`, with
    a_i = y_i α_i), in its box [0, c_iU]."""
    for i in range(cuda.grid(1), z.shape[0], cuda.gridsize(1)):
        ci = c[i]
        a[i] = ci * _dual_target(loss, y[i] * z[i]) if ci != 0.0 else 0.0
