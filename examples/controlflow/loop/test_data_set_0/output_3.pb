BsquaresJ?TB?pé;éy
@1∂E?ı2â@û“T@