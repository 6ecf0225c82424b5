//===- plugins/clang/UkcovInline.cpp -- inline kcov points for clang 14 -===//
//
// A pass plugin for the new pass manager:
//
//	clang-14 -fpass-plugin=.../ukcov-inline-clang.so -g -O2 -c f.c
//
// Each basic block that SanitizerCoverage's trace-pc would instrument
// (same critical-edge splitting, same pruning: LLVM 14
// llvm/lib/Transforms/Instrumentation/SanitizerCoverage.cpp,
// shouldInstrumentBlock) gets, instead of a call to
// __sanitizer_cov_trace_pc, the code of include/ukcov/inline.h (ABI 1):
//
//	on = __ukcov_sancov's word at offset 4	(the callback's gate)
//	L:					(L in __ukcov_pcs)
//	if (on != 0)
//		__ukcov_inline_pc_v1(L);	(cold, out of line)
//
// With tracing off that is one load and one not-taken branch per block
// instead of a call and a return (docs/DESIGN.md, "Inline
// instrumentation", has the alternatives measured).  The PC is the end
// of the load in the block's own code, so the tool's point (PC - 1) lies
// in the block and symbolizes to the line a trace-pc call would have had:
// the instrumentation takes the debug location SanitizerCoverage gives
// its call.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Triple.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include "ukcov/inline.h"

using namespace llvm;

namespace {

// Set on a module once instrumented, so that a second run of the pass
// (an LTO pre-link pipeline, a plugin given twice) changes nothing.
const char DoneFlag[] = "ukcov.inline";

// The gate of a point and its table entry in one statement: the load of
// the word, then the label that ends it, so the label is an address
// inside the block (the tool's point, label - 1, is the load's last
// byte), and the entry is that label, relocated like SanitizerCoverage's
// __sancov_pcs.  Only the cold path computes the PC, from the label, so
// that the hot path holds no PC in a register.  sideeffect: never
// merged with another point's, hoisted or dropped.  The label is
// module-unique (Instrumenter::labelName); a copy of the statement would
// define it twice and stop the assembler, never record a wrong PC.
std::string gateAsm(const std::string &Label)
{
	return "movl " + std::to_string(UKCOV_INLINE_ON_OFS) + "($1), $0\n" +
	       Label + ":\n"
	       "\t.pushsection " UKCOV_INLINE_PCS_SECTION ",\"aw\",@progbits\n"
	       "\t.p2align 3\n"
	       "\t.quad " + Label + "\n"
	       "\t.popsection";
}

std::string pcAsm(const std::string &Label)
{
	return "leaq " + Label + "(%rip), $0";
}

bool isFullDominator(const BasicBlock *BB, const DominatorTree &DT)
{
	if (succ_empty(BB))
		return false;
	return all_of(successors(BB), [&](const BasicBlock *S) {
		return DT.dominates(BB, S);
	});
}

bool isFullPostDominator(const BasicBlock *BB, const PostDominatorTree &PDT)
{
	if (pred_empty(BB))
		return false;
	return all_of(predecessors(BB), [&](const BasicBlock *P) {
		return PDT.dominates(BB, P);
	});
}

// SanitizerCoverage.cpp shouldInstrumentBlock, for an edge-type
// trace-pc build (what -fsanitize-coverage=trace-pc means).
bool shouldInstrumentBlock(const Function &F, const BasicBlock *BB,
			   const DominatorTree &DT,
			   const PostDominatorTree &PDT)
{
	if (isa<UnreachableInst>(BB->getFirstNonPHIOrDbgOrLifetime()))
		return false;
	if (BB->getFirstInsertionPt() == BB->end())
		return false;
	if (&F.getEntryBlock() == BB)
		return true;
	return !isFullDominator(BB, DT) &&
	       !(isFullPostDominator(BB, PDT) && !BB->getSinglePredecessor());
}

// SanitizerCoverage.cpp instrumentFunction's list of functions left alone.
bool shouldInstrumentFunction(const Function &F)
{
	if (F.empty() || F.isDeclaration())
		return false;
	if (F.getName().contains(".module_ctor") ||
	    F.getName().startswith("__sanitizer_") ||
	    F.getName().startswith("__ukcov_"))
		return false;
	if (F.getLinkage() == GlobalValue::AvailableExternallyLinkage)
		return false;
	if (isa<UnreachableInst>(F.getEntryBlock().getTerminator()))
		return false;
	return !F.hasFnAttribute(Attribute::NoSanitizeCoverage);
}

// SanitizerCoverage.cpp PrepareToSplitEntryBlock: static allocas and
// llvm.localescape stay first in the entry block.
BasicBlock::iterator entryInsertPoint(BasicBlock &BB)
{
	BasicBlock::iterator IP = BB.getFirstInsertionPt();

	for (auto I = IP, E = BB.end(); I != E; ++I) {
		if (auto *AI = dyn_cast<AllocaInst>(I)) {
			if (AI->isStaticAlloca())
				IP = std::next(I);
		} else if (auto *II = dyn_cast<IntrinsicInst>(I)) {
			if (II->getIntrinsicID() == Intrinsic::localescape)
				IP = std::next(I);
		}
	}
	return IP;
}

class Instrumenter {
public:
	explicit Instrumenter(Module &M);
	bool runOnFunction(Function &F);

private:
	void injectAtBlock(Function &F, BasicBlock &BB);
	std::string labelName();

	Module &M;
	Type *Int32Ty;
	Type *Int64Ty;
	Constant *OnObj;
	FunctionCallee RecordFn;
	MDNode *Unlikely;
	std::string LabelPrefix;
	uint64_t NextLabel = 0;
};

Instrumenter::Instrumenter(Module &Mod) : M(Mod)
{
	LLVMContext &C = M.getContext();
	Type *Int8Ty = Type::getInt8Ty(C);

	Int32Ty = Type::getInt32Ty(C);
	Int64Ty = Type::getInt64Ty(C);
	// The object, not the word (include/ukcov/inline.h), declared as
	// bytes: the gate reads it at the ABI's offset.
	OnObj = M.getOrInsertGlobal(UKCOV_INLINE_ON_SYM, Int8Ty);
	RecordFn = M.getOrInsertFunction(
		UKCOV_INLINE_PC_FN,
		FunctionType::get(Type::getVoidTy(C), {Int64Ty}, false));
	if (auto *Fn = dyn_cast<Function>(RecordFn.getCallee())) {
		Fn->addFnAttr(Attribute::Cold);
		Fn->addFnAttr(Attribute::NoUnwind);
		Fn->setCallingConv(CallingConv::PreserveMost);
	}
	Unlikely = MDBuilder(C).createBranchWeights(1, 1 << 20);
	// Local labels of one object file: modules merged by LTO must not
	// share them, so the prefix hashes the module's names.
	LabelPrefix = ".Lukcov_pc_" +
		      utohexstr(hash_combine(M.getModuleIdentifier(),
					     M.getSourceFileName())) + "_";
}

std::string Instrumenter::labelName()
{
	return LabelPrefix + std::to_string(NextLabel++);
}

void Instrumenter::injectAtBlock(Function &F, BasicBlock &BB)
{
	BasicBlock::iterator IP = BB.getFirstInsertionPt();
	std::string Label = labelName();
	DebugLoc EntryLoc;

	if (&BB == &F.getEntryBlock()) {
		if (DISubprogram *SP = F.getSubprogram())
			EntryLoc = DILocation::get(SP->getContext(),
						   SP->getScopeLine(), 0, SP);
		IP = entryInsertPoint(BB);
	}
	IRBuilder<> IRB(&*IP);
	if (EntryLoc)
		IRB.SetCurrentDebugLocation(EntryLoc);
	InlineAsm *Gate = InlineAsm::get(
		FunctionType::get(Int32Ty, {OnObj->getType()}, false),
		gateAsm(Label), "=r,r", /*hasSideEffects=*/true);
	CallInst *On = IRB.CreateCall(Gate, {OnObj});
	On->addFnAttr(Attribute::NoUnwind);
	On->addFnAttr(Attribute::NoDuplicate);
	Value *Cond = IRB.CreateICmpNE(On, ConstantInt::get(Int32Ty, 0));
	Instruction *Then = SplitBlockAndInsertIfThen(Cond, &*IP, false,
						      Unlikely);
	IRBuilder<> Cold(Then);
	Cold.SetCurrentDebugLocation(IRB.getCurrentDebugLocation());
	InlineAsm *PcFn = InlineAsm::get(FunctionType::get(Int64Ty, false),
					 pcAsm(Label), "=r",
					 /*hasSideEffects=*/true);
	CallInst *Pc = Cold.CreateCall(PcFn, {});
	Pc->addFnAttr(Attribute::NoUnwind);
	Pc->addFnAttr(Attribute::NoDuplicate);
	CallInst *Rec = Cold.CreateCall(RecordFn, {Pc});
	Rec->setCallingConv(CallingConv::PreserveMost);
	Rec->setCannotMerge();
}

bool Instrumenter::runOnFunction(Function &F)
{
	SmallVector<BasicBlock *, 16> Blocks;

	if (!shouldInstrumentFunction(F))
		return false;
	// -fsanitize-coverage=trace-pc is edge coverage: critical edges
	// get their own block, as in SanitizerCoverage.
	SplitAllCriticalEdges(
		F, CriticalEdgeSplittingOptions().setIgnoreUnreachableDests());
	DominatorTree DT(F);
	PostDominatorTree PDT(F);
	for (BasicBlock &BB : F)
		if (shouldInstrumentBlock(F, &BB, DT, PDT))
			Blocks.push_back(&BB);
	for (BasicBlock *BB : Blocks)
		injectAtBlock(F, *BB);
	return !Blocks.empty();
}

struct UkcovInlinePass : PassInfoMixin<UkcovInlinePass> {
	PreservedAnalyses run(Module &M, ModuleAnalysisManager &)
	{
		bool Changed = false;

		if (M.getModuleFlag(DoneFlag))
			return PreservedAnalyses::all();
		if (Triple(M.getTargetTriple()).getArch() != Triple::x86_64) {
			M.getContext().emitError(
				"ukcov inline instrumentation supports x86-64 "
				"only; build with UKCOV_INLINE=0 (calls)");
			return PreservedAnalyses::all();
		}
		M.addModuleFlag(Module::Override, DoneFlag, 1);
		Instrumenter I(M);
		for (Function &F : M)
			Changed |= I.runOnFunction(F);
		return Changed ? PreservedAnalyses::none()
			       : PreservedAnalyses::all();
	}
	// Also for optnone (-O0) functions.
	static bool isRequired() { return true; }
};

// Where SanitizerCoverage runs in clang 14: the optimizer's last
// extension point (clang/lib/CodeGen/BackendUtil.cpp).  LLVM 14's -O0
// pipeline (PassBuilder::buildO0DefaultPipeline) runs that extension
// point too, after the always-inliner, so -O0 needs nothing more
// (tests/suites.d/57-inline.sh builds at -O0).
void registerUkcov(PassBuilder &PB)
{
	PB.registerOptimizerLastEPCallback(
		[](ModulePassManager &MPM, OptimizationLevel) {
			MPM.addPass(UkcovInlinePass());
		});
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo()
{
	return {LLVM_PLUGIN_API_VERSION, "UkcovInline", "1", registerUkcov};
}
